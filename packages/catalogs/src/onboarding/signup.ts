import type { Request } from 'express';
import { type AccessContext, acceptedTermsOf, emailTaken, membershipsOf, joinByDomain, acceptTerms, createPrincipalWithKey, type IssuedApiKey, type PrincipalRecord, joinByInvitation } from '@floe/accounts';
import { TERMS } from '@floe/config';
import type { Db } from '@floe/db';
import { badRequest, conflict, writeAudit, writeAuditIn } from '@floe/http';
import { connectionFor, type ConnectionDeps } from '../connection/connection';
import type { Engine } from '../connection/recipes';
import { firstProjectOf, liveWarehouseNamed } from '../org-catalogs';
import { resolveWarehouse } from '../resolve';
import { FIRST_CATALOG, onboard, type OnboardDeps, type Onboarded } from './onboard';

// POST /v1/signup, the one-call sign-up of a local stack: a person with a
// first API key (packages/accounts), then onboarding as that person.

export type SignupDeps = OnboardDeps;

export interface SignedUp {
  principal: PrincipalRecord;
  key: IssuedApiKey;
  done: Onboarded;
}

/** 409 `already_exists` for an email a live account holds; otherwise the person, their organisation, project and `lake`. */
export async function signUpOneCall(d: SignupDeps, req: Request, email: string, workspace: string): Promise<SignedUp> {
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
  const ctx: AccessContext = { principalId: principal.principalId, kind: 'human', email, token: false, memberships: await membershipsOf(d.prisma, principal.principalId) };
  // The audit of what onboarding makes names the new person as its actor.
  req.caller = { principalId: principal.principalId, kind: 'human', email, via: 'api_key', keyId: key.keyId, sessionId: null };
  const done = await onboard(d, req, ctx, { organizationName: workspace, projectName: workspace });
  await writeAudit(d.db, req, { action: 'signup.complete', orgId: done.org.org_id, targetType: 'principal', targetId: principal.principalId, data: { email, via: 'one_call' } });
  return { principal, key, done };
}

/** The connection recipe for the onboarded `lake`, or null while it is still provisioning. */
export async function connectionOfOnboarded(d: ConnectionDeps, done: Onboarded, engine: Engine) {
  if (!done.warehouseId) return null;
  const w = await resolveWarehouse(d.prisma, done.ctx, done.warehouseId);
  if (w.status !== 'ready') return null;
  return connectionFor(d, w, engine, null);
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
 * For identity's verified sign-ups (`POST /v1/signup/verify`, a set password):
 * the person's organisation (the reserved one activated, or a new one), a
 * project named after the workspace and the catalog `lake`. Idempotent for
 * one person, so a verify retried after a failure finishes the same account.
 */
export async function onboardVerifiedPerson(d: SignupDeps & ConnectionDeps, req: Request, v: VerifiedSignup) {
  // The audit of what onboarding makes names the new person as its actor.
  req.caller = { principalId: v.principalId, kind: 'human', email: v.email, via: 'api_key', keyId: null, sessionId: null };
  // An invitation to the address places the person in the inviting organisation; a joiner provisions nothing.
  const joined = (await joinByInvitation(d, req, { principalId: v.principalId, email: v.email }))?.orgId
    ?? await joinByDomain(d, req, { principalId: v.principalId, email: v.email });
  const ctx: AccessContext = { principalId: v.principalId, kind: 'human', email: v.email, token: false, memberships: await membershipsOf(d.prisma, v.principalId) };
  if (joined) {
    const m = ctx.memberships.find((x) => x.orgId === joined)!;
    const project = await firstProjectOf(d.prisma, m.orgId);
    const lake = await liveWarehouseNamed(d.prisma, m.orgId, FIRST_CATALOG);
    const done: Onboarded = {
      org: { org_id: m.orgId, name: m.name, handle: m.handle, role: m.role, joined_via: m.joinedVia },
      projectId: project?.id ?? null, warehouseId: lake?.id ?? null, created: { organization: false, project: false, warehouse: false }, ctx,
    };
    return { done, connection: lake ? await connectionOfOnboarded(d, done, v.engine).catch(() => null) : null };
  }
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
