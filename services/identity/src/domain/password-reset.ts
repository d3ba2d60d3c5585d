import { accountByEmail, credentialsOf, markEmailVerified, setPasswordHash } from '@floe/accounts';
import { conflict, forbidden, HttpError } from '@floe/http';
import type { Caller } from '@floe/http';
import { passwordChangedMail, resetLinkMail } from '../mail/messages';
import { insertLoginToken, newestLoginToken, spendLoginToken } from '../store/login-tokens';
import { firstOrganizationOf } from '../store/memberships';
import { revokeSessionsOf } from '../store/sessions';
import { withMailAdmitted } from './email-codes';
import { RESET_SECONDS, linkUrl, newLinkToken, usableLink } from './login-links';
import { checkedPassword, takeLoginAttempt, type PasswordLimitDeps } from './login';
import { checkPassword, hashPassword } from './passwords';
import { sessionAfterPassword } from './login-second-step';
import { sessionsEnded } from './sessions';
import type { PasswordSignupDeps } from './password-signup';

// Spec: POST /v1/auth/password/reset/start, POST /v1/auth/password/reset and
// POST /v1/auth/password/change. The start answers alike whether or not the
// address has an account; an account without a password gets the same link
// (its first password). A reset ends every session and starts a fresh one; a
// change ends every other session; both mail a notice, and the sessions they
// end stop their access tokens at once (sessionsEnded). A change checks the
// current password under the login's limits, sharing its counts (login.ts).

/** `caller`: the caller's address (req.ip); the start spends its budget and the e-mail address's, whether or not an account exists. */
export async function startReset(d: PasswordSignupDeps, email: string, caller: string) {
  const previous = await newestLoginToken(d.prisma, email, 'reset');
  const delivery = await withMailAdmitted(d, { email, purpose: 'reset', caller }, previous?.createdAt ?? null, 'link', async () => {
    const account = await accountByEmail(d.prisma, email);
    if (account?.kind !== 'human') return d.mailer.delivery;
    const link = newLinkToken();
    const sent = await d.mailer.send(resetLinkMail(email, linkUrl(d.config.baseUrl, 'reset', link.token), RESET_SECONDS / 60));
    await d.devCodes.keep(email, 'reset', link.token, RESET_SECONDS);
    await insertLoginToken(d.prisma, { tokenHash: link.hash, purpose: 'reset', email, principalId: account.principalId, details: {}, expiresAt: new Date(Date.now() + RESET_SECONDS * 1000) });
    return sent;
  });
  return { email, delivery, expires_in: RESET_SECONDS, next: ['open the link in the mail to choose a new password (POST /v1/auth/password/reset)'] };
}

export async function resetPassword(d: PasswordSignupDeps, r: { token: string; password: string; userAgent: string | null; ip: string | null }) {
  const done = await d.prisma.$transaction(async (tx) => {
    const link = await usableLink(tx, r.token, ['reset']);
    const person = link.principalId ? await credentialsOf(tx, link.principalId) : null;
    if (!person || person.status === 'deleted' || !link.principalId) throw new HttpError(401, 'invalid_login_token', 'this link is not valid (or was already used); ask for a new one');
    const org = await firstOrganizationOf(tx, link.principalId);
    checkPassword(r.password, { email: link.email, orgName: org?.name });
    const firstPassword = person.passwordHash === null;
    await setPasswordHash(tx, link.principalId, await hashPassword(r.password));
    await markEmailVerified(tx, link.principalId);
    const revoked = await revokeSessionsOf(tx, link.principalId, 'password_reset');
    await spendLoginToken(tx, link.tokenHash);
    return { principalId: link.principalId, email: link.email, firstPassword, revoked };
  }, { maxWait: 30_000, timeout: 30_000 });
  await sessionsEnded(d, done.revoked);
  await d.mailer.send(passwordChangedMail(done.email, 'reset')).catch(() => undefined);
  // With a second factor the new password is set, and the session waits for the code (login-second-step.ts).
  const session = await sessionAfterPassword(d, done.principalId, { email: done.email, userAgent: r.userAgent, ip: r.ip });
  return { ...session, sessions_revoked: done.revoked, first_password: done.firstPassword };
}

/** POST /v1/auth/password/change: a person's own act (a token has no password); the caller's session lives on. */
export async function changePassword(d: PasswordSignupDeps & PasswordLimitDeps, caller: Caller, c: { currentPassword: string; newPassword: string; ip: string | null }) {
  if (caller.kind !== 'human') throw forbidden('forbidden', 'a token has no password; a person changes theirs');
  const person = await credentialsOf(d.prisma, caller.principalId);
  if (!person?.passwordHash) throw conflict('no_password_set', 'this account has no password yet; set one with POST /v1/auth/password/reset/start');
  // The login's limits: the caller address's attempts and the account address's failures, the same counts.
  await takeLoginAttempt(d, c.ip);
  const right = await checkedPassword(d, {
    email: person.email ?? caller.principalId, ip: c.ip, personId: caller.principalId, stored: person.passwordHash, password: c.currentPassword,
  });
  if (!right) throw new HttpError(401, 'invalid_login', 'the current password is wrong');
  const org = await firstOrganizationOf(d.prisma, caller.principalId);
  checkPassword(c.newPassword, { email: person.email ?? '', orgName: org?.name }, 'new_password');
  const at = await setPasswordHash(d.prisma, caller.principalId, await hashPassword(c.newPassword));
  const revoked = await revokeSessionsOf(d.prisma, caller.principalId, 'password_change', caller.sessionId);
  await sessionsEnded(d, revoked);
  if (person.email) await d.mailer.send(passwordChangedMail(person.email, 'change')).catch(() => undefined);
  return { changed: true, other_sessions_revoked: revoked, password_changed_at: at.toISOString() };
}
