import type { Db } from '@floe/db';
import { forbidden, HttpError, type ErrorExtras } from '@floe/http';
import { atLeast, type Access, type Level } from '../levels';
import { adminsOf, principalLabel, sessionSignedInAt } from '../memberships';
import { isConfinedToken, membershipIn, type AccessContext } from './context';

/** What these rules read of a catalog the caller sees (the catalogs aggregate's visible warehouse). */
export interface SeenCatalog {
  name: string;
  orgId: string | null;
  projectOwner: string;
  access: Access;
}

/**
 * How the accounts aggregate finds a catalog a caller names: the catalogs
 * aggregate (which reads accounts to judge visibility) answers, handed in by
 * the deployable, so neither package imports the other in a circle.
 */
export interface CatalogFinder {
  /** The catalog `idOrName` as `ctx` sees it; 404 `warehouse_not_found` when it sees none. */
  resolve(db: Db, ctx: AccessContext, idOrName: string): Promise<SeenCatalog & { id: string }>;
}

export interface Granter {
  principal_id: string;
  kind: string;
  display: string | null;
  role: 'admin';
}

/** Who could raise a caller's level on a warehouse: the admins of its organisation (people first); outside one, the project's owner. */
export async function grantersOf(db: Db, w: { orgId: string | null; projectOwner: string }): Promise<Granter[]> {
  const labels = w.orgId ? await adminsOf(db, w.orgId) : [await principalLabel(db, w.projectOwner)].filter((p) => p !== null);
  return labels.map((p) => ({ principal_id: p.id, kind: p.kind, display: p.display, role: 'admin' }));
}

/** 403 `forbidden` with `can_grant`, who can grant on this warehouse (error rule 1), after any other extras. */
export async function forbiddenNamingGranters(db: Db, w: SeenCatalog, message: string, extras: ErrorExtras = {}): Promise<HttpError> {
  return new HttpError(403, 'forbidden', message, { ...extras, can_grant: await grantersOf(db, w) });
}

/** Error rule 1: a holder below the needed level gets 403 `forbidden` naming who can grant it. */
export async function requireLevel(db: Db, w: SeenCatalog, needed: Level, what: string): Promise<void> {
  if (atLeast(w.access.level, needed)) return;
  throw await forbiddenNamingGranters(db, w, `${what} needs ${needed} level on warehouse ${w.name}; you hold ${w.access.level}`, {
    level: w.access.level,
    needed,
  });
}

/** Whether the caller is an admin of the warehouse's organisation; outside an organisation the project's owner is its admin. */
export function isWarehouseAdmin(ctx: AccessContext, w: { orgId: string | null; projectOwner: string | null }): boolean {
  const m = membershipIn(ctx, w.orgId);
  return m ? m.role === 'admin' : w.orgId === null && w.projectOwner === ctx.principalId;
}

/**
 * Making a catalog readable by anyone is a person's act: a token (an agent,
 * an OAuth token), whatever its role, is 403 `person_required` (the spec's
 * code for warehouse public). Taking a catalog private again is not: it only
 * removes access.
 */
export function requirePerson(ctx: AccessContext, what: string): void {
  if (ctx.kind !== 'human') throw forbidden('person_required', `${what} is a person's act; a token cannot do it, whatever its role`, { kind: ctx.kind });
}

/** Publishing is an admin's act (Authentication 6). */
export function requireAdmin(ctx: AccessContext, w: SeenCatalog, what: string): void {
  if (!isWarehouseAdmin(ctx, w)) throw forbidden('forbidden', `${what} is for an admin of the organisation`, { needed: 'admin', level: w.access.level });
}

/**
 * What reaches past a token's grants — a new project, a new catalog,
 * onboarding (which may make an organisation, a project and a catalog) — needs
 * an unconfined caller: 403 `forbidden` for a confined token.
 */
export function requireUnconfined(ctx: AccessContext, orgId: string | null, what: string): void {
  if (!isConfinedToken(ctx, orgId)) return;
  const why = ctx.kind === 'mcp'
    ? 'an OAuth access token acts only on the catalogs it was granted'
    : orgId && membershipIn(ctx, orgId) ? 'a member token acts only on the catalogs it was granted' : 'a token outside an organisation holds nothing';
  throw forbidden('forbidden', `${what} needs a person or an admin-role agent of the organisation; ${why}`, {
    confined: true, needed: 'admin', role: membershipIn(ctx, orgId)?.role ?? null,
  });
}

/** How long after typing the password a browser session may make a sensitive change (Authentication 7). */
export const REAUTH_AFTER_SECONDS = 600;

/**
 * Authentication 7: a sensitive change from a login session that signed in
 * over 10 minutes ago is 401 `reauth_required` (POST /v1/auth/reauth signs it
 * in again). A caller without a session — an API key, or a token made from
 * one — is never asked.
 */
export async function requireSignedInRecently(db: Db, sessionId: string | null): Promise<void> {
  if (!sessionId) return;
  const at = await sessionSignedInAt(db, sessionId);
  if (!at || Date.now() - at.getTime() > REAUTH_AFTER_SECONDS * 1000) {
    throw new HttpError(401, 'reauth_required', 'this change needs a recent sign-in: confirm your password (POST /v1/auth/reauth), then retry', { remedy: 'POST /v1/auth/reauth' });
  }
}
