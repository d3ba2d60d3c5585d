import type { Request } from 'express';
import { accountByEmail, insertPrincipal, refuseDisposableAddress, issueApiKey, newPrincipalId, releaseOrganization, reserveForSignup, type ReservedOrganization } from '@floe/accounts';
import { TERMS, type FloeConfig } from '@floe/config';
import type { PrismaClient } from '@floe/db';
import { withSessionLock } from '@floe/db/session-lock';
import { onboardAccount, type ConnectionDeps, type Engine, type SignupDeps as OnboardingDeps } from '@floe/catalogs';
import { badRequest, conflict, notFound, writeAudit, type SqlClient } from '@floe/http';
import type { Delivery, Mailer } from '@floe/mail';
import { signupCodeMail } from '../mail/messages';
import { deleteCode, putCode } from '../store/email-codes';
import { CODE_LENGTH, CODE_SECONDS, checkCode, codeHash, newCode, withCodeAdmitted, type DevCodes, type MailBudgets } from './email-codes';
import { joinFor } from './joins';

// Spec: POST /v1/signup/start and POST /v1/signup/verify. The start mails a
// code and keeps only its hash (with the form, a pending organisation holds
// the handle); the verify makes the account, its first API key, and — through
// packages/catalogs' onboarding — its organisation, a project named after the
// workspace and the catalog `lake`. Verifies of one address run one at a time
// (a session lock on the address), and the code is spent only when all of it
// is made, with the key, so a verify that failed part-way is finished by the
// next; twenty at once make one account.

export interface SignupDeps extends MailBudgets, Omit<OnboardingDeps & ConnectionDeps, 'config'> {
  prisma: PrismaClient;
  db: SqlClient & OnboardingDeps['db'];
  mailer: Mailer;
  devCodes: DevCodes;
  config: Pick<FloeConfig, 'pendingHandlesPerCaller'> & OnboardingDeps['config'] & ConnectionDeps['config'];
}

export interface SignupStart {
  email: string;
  workspace?: string;
  fullName?: string;
  organizationName?: string;
  handle?: string;
}

/** What a pending sign-up keeps beside its code. */
interface SignupDetails {
  principal_id: string;
  workspace: string;
  full_name: string | null;
  organization: Omit<ReservedOrganization, 'created' | 'reclaimed'> | null;
}

export async function startSignup(d: SignupDeps, req: Request, s: SignupStart) {
  refuseDisposableAddress(s.email);
  if (await accountByEmail(d.prisma, s.email)) {
    throw conflict('already_exists', `an account for ${s.email} exists; recover its key with POST /v1/recover/start`, { field: 'email' });
  }
  const caller = req.ip ?? 'unknown';
  const workspace = s.workspace ?? s.organizationName ?? s.handle ?? s.email.split('@')[0];
  const { delivery, organization, join } = await withCodeAdmitted(d, { email: s.email, purpose: 'signup', caller }, async (previous) => {
    // An invitation places the person in the inviting organisation (`will_join`): nothing of theirs is reserved.
    const join = await joinFor(d.prisma, s.email);
    const before = previous?.details as Partial<SignupDetails> | undefined;
    // One person across restarts of the sign-up: the pending organisation is reserved for this id.
    const principalId = before?.principal_id ?? newPrincipalId();
    const reserved = !join && (s.organizationName !== undefined || s.handle !== undefined)
      ? await reserveForSignup(d, req, { principalId, name: s.organizationName ?? workspace, handle: s.handle, clientAddress: caller, holdSeconds: CODE_SECONDS })
      : null;
    const organization = reserved && { org_id: reserved.org_id, name: reserved.name, handle: reserved.handle, status: reserved.status };
    const code = newCode();
    // The mail before the code is kept: a server that refuses leaves no code, and no reservation this start made.
    let delivery: Delivery;
    try {
      delivery = await d.mailer.send(signupCodeMail(s.email, code, CODE_SECONDS / 60));
    } catch (err) {
      if (reserved?.created) await releaseOrganization(d.prisma, reserved.org_id, principalId);
      throw err;
    }
    const details: SignupDetails = { principal_id: principalId, workspace, full_name: s.fullName ?? null, organization };
    await putCode(d.prisma, { email: s.email, purpose: 'signup', codeHash: codeHash(s.email, code), details: { ...details }, expiresAt: new Date(Date.now() + CODE_SECONDS * 1000) });
    await d.devCodes.keep(s.email, 'signup', code);
    return { delivery, organization, join };
  });
  await writeAudit(d.db, req, { action: 'signup.start', actorId: null, actorKind: null, orgId: organization?.org_id ?? null, targetType: 'email', targetId: s.email, data: { delivery, organization: organization?.handle ?? null } });
  return {
    email: s.email,
    workspace,
    delivery,
    ...(organization ? { organization } : {}),
    ...(join ? { will_join: { org_id: join.org_id, name: join.name, handle: join.handle } } : {}),
    terms: { ...TERMS, note: 'Accept the Terms with "accept_terms": true when you verify.' },
    next: ['POST /v1/signup/verify with {"email", "code", "accept_terms": true, "engine"}'],
    note: `A ${CODE_LENGTH}-digit code is on its way to ${s.email}; it is valid for ${CODE_SECONDS / 60} minutes. Nothing is created until it is verified.`,
    expires_in: CODE_SECONDS,
    code_length: CODE_LENGTH,
  };
}

export interface SignupVerify {
  email: string;
  code: string;
  acceptTerms: unknown;
  engine: Engine;
}

export async function verifySignup(d: SignupDeps, req: Request, v: SignupVerify) {
  if (v.acceptTerms !== true) throw badRequest('terms_required', 'accept_terms must be exactly true', { field: 'accept_terms', terms: TERMS });
  // One verify of an address at a time, waiting without a pooled connection: the one at work needs several (onboarding makes the catalog).
  const outcome = await withSessionLock(d.db, `signup-verify:${v.email}`, async () => {
    // The person is committed before onboarding, whose memberships reference
    // them; one made by a verify that failed after this step is taken up again.
    const checked = await d.prisma.$transaction(async (tx) => {
      const check = await checkCode(tx, v.email, 'signup', v.code, () => notFound('no_pending_signup', `no sign-up is waiting for ${v.email}; start with POST /v1/signup/start`));
      if (!check.ok) return check;
      const details = check.code.details as unknown as SignupDetails;
      const existing = await accountByEmail(tx, v.email);
      if (existing && existing.principalId !== details.principal_id) {
        await deleteCode(tx, v.email, 'signup');
        return { ok: false as const, error: conflict('already_exists', `an account for ${v.email} exists; recover its key with POST /v1/recover/start`, { field: 'email' }) };
      }
      const principal = existing ?? await insertPrincipal(tx, { id: details.principal_id, kind: 'human', email: v.email, displayName: details.full_name, termsVersion: TERMS.version, emailVerified: true });
      return { ok: true as const, principal, details };
    });
    if (!checked.ok) return checked;
    const { principal, details } = checked;
    const account = await onboardAccount(d, req, {
      principalId: principal.principalId, email: v.email, workspace: details.workspace, pendingOrgId: details.organization?.org_id ?? null, engine: v.engine,
    });
    // The key is issued as the code is spent: a verify that fails before here leaves no key that nobody was shown.
    const key = await d.prisma.$transaction(async (tx) => {
      const issued = await issueApiKey(tx, principal.principalId, 'sign-up');
      await deleteCode(tx, v.email, 'signup');
      return issued;
    });
    return { ok: true as const, principal, key, account };
  }, { waitMs: 120_000 });
  if (!outcome.ok) throw outcome.error;
  const { principal, key, account } = outcome;
  req.caller = { principalId: principal.principalId, kind: 'human', email: v.email, via: 'api_key', keyId: key.keyId, sessionId: null };
  await writeAudit(d.db, req, { action: 'signup.verify', orgId: account.organization.org_id, targetType: 'principal', targetId: principal.principalId, data: { email: v.email } });
  await writeAudit(d.db, req, { action: 'signup.complete', orgId: account.organization.org_id, targetType: 'principal', targetId: principal.principalId, data: { email: v.email, via: 'email_code', terms_version: TERMS.version } });
  return {
    api_key: key.apiKey,
    api_key_note: 'Shown once. Only a hash is kept; POST /v1/api-keys makes another.',
    principal_id: principal.principalId,
    project_id: account.project_id,
    warehouse_id: account.warehouse_id,
    organization: { org_id: account.organization.org_id, role: account.organization.role, joined_via: account.organization.joined_via },
    connection: account.connection,
    next: [
      'GET /v1/warehouses — your catalogs, with your level on each',
      ...(account.warehouse_id ? [`GET /v1/connection?warehouse=${account.warehouse_id}&engine=pyiceberg — a recipe for another engine`] : []),
      'POST /v1/tables — create a table without an engine',
    ],
    terms: { version: TERMS.version, accepted: true, url: TERMS.url },
  };
}
