import type { Request } from 'express';
import { type AccessContext, acceptedTermsOf, emailTaken, membershipsOf, acceptTerms, createPrincipalWithKey, type IssuedApiKey, type PrincipalRecord } from '@floe/accounts';
import { TERMS } from '@floe/config';
import type { Db } from '@floe/db';
import { badRequest, conflict, writeAudit, writeAuditIn } from '@floe/http';
import { connectionFor, type ConnectionDeps } from '../connection/connection';
import type { Engine } from '../connection/recipes';
import { resolveWarehouse } from '../resolve';
import { onboard, type OnboardDeps, type Onboarded } from './onboard';

// POST /v1/signup, the one-call sign-up of a local stack: a person with a
// first API key (packages/accounts), then onboarding as that person, as a
// verified sign-up onboards (invitations and open domains included).

export type SignupDeps = OnboardDeps;

export interface SignedUp {
  principal: PrincipalRecord;
  key: IssuedApiKey;
  done: Onboarded;
  connection: Awaited<ReturnType<typeof connectionOfOnboarded>>;
}

/** 409 `already_exists` for an email a live account holds; otherwise the person, their organisation, project and `lake`. */
export async function signUpOneCall(d: SignupDeps & ConnectionDeps, req: Request, email: string, workspace: string, engine: Engine): Promise<SignedUp> {
  if (await emailTaken(d.prisma, email)) {
    throw conflict('already_exists', `an account for ${email} exists; recover its key with POST /v1/recover/start`, { field: 'email' });
  }
  // The person, their first key and its audit event (the new person as its actor) in one transaction.
  const { principal, key } = await d.prisma.$transaction(async (tx) => {
    const made = await createPrincipalWithKey(tx, { kind: 'human', email, displayName: null, label: 'signup', termsVersion: TERMS.version });
    await writeAuditIn(tx, req, {
      action: 'api_key.create', actorId: made.principal.principalId, actorKind: 'human', targetType: 'api_key', targetId: made.key.keyId,
      data: { label: made.key.label, principal_id: made.principal.principalId, via: 'signup' },
    });
    return made;
  });
  req.caller = { principalId: principal.principalId, kind: 'human', email, via: 'api_key', keyId: key.keyId, sessionId: null };
  const { done, connection } = await onboardVerifiedPerson(d, req, { principalId: principal.principalId, email, workspace, pendingOrgId: null, engine });
  await writeAudit(d.db, req, { action: 'signup.complete', orgId: done.org.org_id, targetType: 'principal', targetId: principal.principalId, data: { email, via: 'one_call' } });
  return { principal, key, done, connection };
}

/**
 * The connection recipe for the onboarded `lake`, as GET /v1/connection
 * answers it (`state: ready`); while `lake` still provisions, its state and
 * when to ask again; null for a joiner whose organisation has no `lake`.
 */
export async function connectionOfOnboarded(d: ConnectionDeps, done: Onboarded, engine: Engine) {
  if (!done.warehouseId) return null;
  const w = await resolveWarehouse(d.prisma, done.ctx, done.warehouseId).catch(() => null);
  if (!w) return null;
  if (w.status !== 'ready') {
    return {
      state: 'provisioning' as const, warehouse_id: w.id, warehouse: w.name, retry_after_seconds: 30,
      note: `the catalog ${w.name} is still being provisioned (retried every 30 s); GET /v1/connection?warehouse=${w.id} answers with the recipe once it is ready`,
    };
  }
  return { state: 'ready' as const, ...(await connectionFor(d, w, engine, null)) };
}

/** What a verified sign-up asks the control plane for (identity made the person and their key). */
export interface VerifiedSignup {
  principalId: string;
  email: string;
  workspace: string;
  /** The organisation reserved at the start, when the form named one. */
  pendingOrgId: string | null;
  engine: Engine;
}

/**
 * For identity's verified sign-ups (`POST /v1/signup/verify`, a set password)
 * and the one-call sign-up: onboarding as the new person (an invitation or an
 * open claimed domain places them in that organisation; else the reserved
 * organisation activated, or a new one, a project named after the workspace
 * and the catalog `lake`). Idempotent for one person, so a verify retried
 * after a failure finishes the same account.
 */
export async function onboardVerifiedPerson(d: SignupDeps & ConnectionDeps, req: Request, v: VerifiedSignup) {
  // The audit of what onboarding makes names the new person as its actor.
  if (req.caller?.principalId !== v.principalId) req.caller = { principalId: v.principalId, kind: 'human', email: v.email, via: 'api_key', keyId: null, sessionId: null };
  const ctx: AccessContext = { principalId: v.principalId, kind: 'human', email: v.email, token: false, memberships: await membershipsOf(d.prisma, v.principalId) };
  const done = await onboard(d, req, ctx, { organizationName: v.workspace, projectName: v.workspace, pendingOrgId: v.pendingOrgId ?? undefined });
  return { done, connection: await connectionOfOnboarded(d, done, v.engine) };
}

/**
 * POST /v1/onboard honours the Terms: a person who has not accepted the
 * version in force sends `accept_terms: true` , or gets
 * 400 `terms_required`. Tokens onboard under the person who approved them.
 */
export async function requireTermsAccepted(d: { prisma: Db }, ctx: AccessContext, accept: unknown): Promise<void> {
  if (ctx.kind !== 'human' || (await acceptedTermsOf(d.prisma, ctx.principalId)) === TERMS.version) return;
  if (accept !== true) throw badRequest('terms_required', 'accept the Terms in force with "accept_terms": true', { field: 'accept_terms', terms: TERMS });
  await acceptTerms(d.prisma, ctx.principalId, TERMS.version);
}

/** A verified person onboarded, in the shape identity's sign-up answers carry. */
export async function onboardAccount(d: SignupDeps & ConnectionDeps, req: Request, v: VerifiedSignup) {
  const { done, connection } = await onboardVerifiedPerson(d, req, v);
  return {
    organization: { org_id: done.org.org_id, name: done.org.name, handle: done.org.handle, role: done.org.role, joined_via: done.org.joined_via },
    project_id: done.projectId,
    warehouse_id: done.warehouseId,
    created: done.created,
    connection,
  };
}
