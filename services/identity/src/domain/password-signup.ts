import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { accountByEmail, insertPersonWithPassword, refuseDisposableAddress, newPrincipalId, releaseOrganization, reserveForSignup, setPasswordHash } from '@floe/accounts';
import { onboardAccount } from '@floe/catalogs';
import { withSessionLock } from '@floe/db/session-lock';
import { TERMS } from '@floe/config';
import { conflict, writeAudit } from '@floe/http';
import type { Delivery } from '@floe/mail';
import { welcomeLinkMail } from '../mail/messages';
import { insertLoginToken, newestLoginToken, spendLoginToken } from '../store/login-tokens';
import { withMailAdmitted } from './email-codes';
import { WELCOME_SECONDS, linkUrl, newLinkToken, usableLink } from './login-links';
import { joinFor, type Join } from './joins';
import { checkPassword, hashPassword } from './passwords';
import { sessionAfterPassword, type SecondStepDeps } from './login-second-step';
import type { SignupDeps } from './signup';

// Spec: POST /v1/auth/signup and POST /v1/auth/password/set. The sign-up
// reserves the organisation's handle (a pending organisation) and mails a
// set-password link; nothing else exists until the password is set, which
// makes the account, activates the organisation with the person as admin,
// and gives them a project and the catalog `lake` — then a session.
// Invitations and open claimed domains will place a person elsewhere
// (domain/joins.ts decides; organisations have neither yet).

export type PasswordSignupDeps = SignupDeps & SecondStepDeps;

export interface PasswordSignupAsk {
  email: string;
  fullName: string;
  organizationName: string;
  handle: string;
  returnTo: string | null;
}

interface WelcomeDetails {
  principal_id: string;
  full_name: string;
  organization: { org_id: string; name: string; handle: string; status: 'pending' } | null;
  join?: Join | null;
  return_to: string | null;
}

export async function passwordSignup(d: PasswordSignupDeps, req: Request, a: PasswordSignupAsk) {
  refuseDisposableAddress(a.email);
  if (await accountByEmail(d.prisma, a.email)) {
    throw conflict('already_exists', `an account for ${a.email} exists; log in, or reset its password`, { field: 'email' });
  }
  const previous = await newestLoginToken(d.prisma, a.email, 'welcome');
  const caller = req.ip ?? 'unknown';
  const { delivery, organization, join } = await withMailAdmitted(d, { email: a.email, purpose: 'welcome', caller }, previous?.createdAt ?? null, 'link', async () => {
    // An invitation places the person in the inviting organisation: the organisation fields are ignored.
    const join = await joinFor(d.prisma, a.email);

    const principalId = (previous?.details as Partial<WelcomeDetails> | undefined)?.principal_id ?? newPrincipalId();
    const reserved = join ? null : await reserveForSignup(d, req, { principalId, name: a.organizationName, handle: a.handle, clientAddress: caller, holdSeconds: WELCOME_SECONDS });
    const organization = reserved && { org_id: reserved.org_id, name: reserved.name, handle: reserved.handle, status: reserved.status };
    const link = newLinkToken();
    let delivery: Delivery;
    try {
      delivery = await d.mailer.send(welcomeLinkMail(a.email, linkUrl(d.config.baseUrl, 'welcome', link.token), WELCOME_SECONDS / 86_400));
    } catch (err) {
      if (reserved?.created) await releaseOrganization(d.prisma, reserved.org_id, principalId);
      throw err;
    }
    const details: WelcomeDetails = { principal_id: principalId, full_name: a.fullName, organization, join, return_to: a.returnTo };
    await d.devCodes.keep(a.email, 'welcome', link.token, WELCOME_SECONDS);
    await insertLoginToken(d.prisma, { tokenHash: link.hash, purpose: 'welcome', email: a.email, principalId: null, details: { ...details }, expiresAt: new Date(Date.now() + WELCOME_SECONDS * 1000) });
    return { delivery, organization, join };
  });
  await writeAudit(d.db, req, { action: 'signup.start', actorId: null, actorKind: null, orgId: organization?.org_id ?? join?.org_id ?? null, targetType: 'email', targetId: a.email, data: { delivery, via: 'password', organization: organization?.handle ?? null, will_join: join?.handle ?? null } });
  return {
    email: a.email,
    delivery,
    expires_in: WELCOME_SECONDS,
    ...(organization ? { organization } : {}),
    ...(join ? { will_join: join, note_join: `You were invited to ${join.name}: you will join it as ${join.role === 'admin' ? 'an admin' : 'a member'} when you set your password; the organisation you named is not made.` } : {}),
    terms: { ...TERMS, note: 'Setting your password accepts the Terms shown.' },
    next: ['open the link in the mail to set your password (POST /v1/auth/password/set)'],
    note: `A link to set your password is on its way to ${a.email}; it works for ${WELCOME_SECONDS / 86_400} days.`,
    return_to: a.returnTo,
  };
}

/** A new account's catalog `lake` as the answer that made it shows it (null when onboarding made none). */
export function lakeOf(account: { warehouse_id: string | null; project_id: string | null; created?: { warehouse?: boolean } | null }) {
  return account.warehouse_id
    ? { warehouse_id: account.warehouse_id, name: 'lake', project_id: account.project_id, created: account.created?.warehouse ?? true }
    : null;
}

/** POST /v1/auth/password/set: the welcome link spent, the account made and its organisation active, a session. */
export async function setFirstPassword(d: PasswordSignupDeps, req: Request, s: { token: string; password: string; userAgent: string | null; ip: string | null }) {
  // One use of a link at a time, waiting without a pooled connection: the one at work needs several (onboarding makes the catalog).
  const made = await withSessionLock(d.db, `welcome:${createHash('sha256').update(s.token).digest('hex')}`, async () => {
    // The person is committed before onboarding, whose memberships reference
    // them; one made by a use of this link that failed after this step is
    // taken up again, with the password typed now.
    const { principal, details, orgName, tokenHash, email } = await d.prisma.$transaction(async (tx) => {
      const link = await usableLink(tx, s.token, ['welcome']);
      const details = link.details as unknown as WelcomeDetails;
      // A password the rules refuse leaves the link unspent.
      const orgName = details.organization?.name ?? details.join?.name ?? null;
      checkPassword(s.password, { email: link.email, orgName });
      const passwordHash = await hashPassword(s.password);
      const existing = await accountByEmail(tx, link.email);
      if (existing && existing.principalId !== details.principal_id) throw conflict('already_exists', `an account for ${link.email} exists; log in, or reset its password`, { field: 'email' });
      if (existing) await setPasswordHash(tx, existing.principalId, passwordHash);
      const principal = existing ?? await insertPersonWithPassword(tx, {
        id: details.principal_id, email: link.email, displayName: details.full_name, passwordHash, termsVersion: TERMS.version,
      });
      return { principal, details, orgName, tokenHash: link.tokenHash, email: link.email };
    });
    const account = await onboardAccount(d, req, {
      principalId: principal.principalId, email, workspace: orgName ?? email.split('@')[0], pendingOrgId: details.organization?.org_id ?? null, engine: 'duckdb',
    });
    // The link is spent only when all of it is made.
    await spendLoginToken(d.prisma, tokenHash);
    return { principal, account, returnTo: details.return_to };
  }, { waitMs: 120_000 });
  req.caller = { principalId: made.principal.principalId, kind: 'human', email: made.principal.email, via: 'token', keyId: null, sessionId: null };
  await writeAudit(d.db, req, { action: 'signup.complete', orgId: made.account.organization.org_id, targetType: 'principal', targetId: made.principal.principalId, data: { email: made.principal.email, via: 'password', terms_version: TERMS.version } });
  // A joiner into an organisation that requires a second factor enrols before the first session (login-second-step.ts).
  const session = await sessionAfterPassword(d, made.principal.principalId, { email: made.principal.email, userAgent: s.userAgent, ip: s.ip });
  return {
    ...session,
    warehouse: lakeOf(made.account),
    return_to: made.returnTo,
  };
}
