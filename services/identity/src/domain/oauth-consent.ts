import type { Request } from 'express';
import { deviceCatalogs, type AskedLevel as DeviceLevel, type DeviceCatalogs, type OnboardDeps } from '@floe/catalogs';
import { scopesAllowWrites } from '@floe/auth';
import type { FloeConfig } from '@floe/config';
import type { PrismaClient } from '@floe/db';
import { agentView, recordHolding } from '@floe/accounts';
import { forbidden, HttpError, notFound, type Caller } from '@floe/http';
import { organizationsOf } from '../store/memberships';
import { bindingOf } from '../store/oauth-grants';
import { oauthRequestById, type OAuthRequestRecord } from '../store/oauth-requests';
import { capped } from './device-approval';
import { SCOPES, type Scope } from './oauth-server';

// Spec: GET /v1/oauth/authorize/pending — what the consent page shows a
// signed-in person about a consent request: the client, what it asks for in
// words, and the catalogs of the organisation with the levels the person can
// give (the control plane's levels, through the internal route the device
// login reads). A person's act in a browser: only a login session reads it
// (an API key: 403 session_required; a token: 403 forbidden). Reading
// decides nothing. When an earlier allow bound a token record to this person
// and client in this organisation, it is shown (`existing`, and `granted` on
// each catalog) because allowing again replaces its grants.

export interface ConsentDeps extends OnboardDeps {
  prisma: PrismaClient;
}

/** 403 unless the caller is a person signed in with a login session. */
export function requireLoginSession(caller: Caller): void {
  if (caller.via === 'api_key') throw forbidden('session_required', 'consent is given in a login session (sign in at /app); an API key cannot give it');
  if (caller.kind !== 'human' || !caller.sessionId) throw forbidden('forbidden', 'consent is a person\'s act in a login session; a token cannot give it');
}

/** A consent request still waiting: 404 unknown, 410 decided or expired. */
export async function pendingRequest(prisma: PrismaClient, requestId: string): Promise<OAuthRequestRecord> {
  const r = await oauthRequestById(prisma, requestId);
  if (!r) throw notFound('oauth_request_not_found', `no authorization request ${requestId}`);
  if (r.status !== 'pending') throw new HttpError(410, 'oauth_request_decided', 'this authorization request was decided already; the application must start again');
  if (r.expiresAt.getTime() <= Date.now()) throw new HttpError(410, 'oauth_request_expired', 'this authorization request expired (15 minutes); the application must start again');
  return r;
}

/** The level a request's scopes ask for on each catalog. */
const levelOf = (scopes: string[]): DeviceLevel => (scopesAllowWrites(scopes) ? 'write' : 'read');

/**
 * The live mcp record an allow would reuse: the one bound to this person and
 * client in this organisation (the decision reuses no other), as the control
 * plane holds it now. A revoked record, or one gone from the organisation,
 * is none: allowing makes a new one.
 */
async function existingRecord(d: ConsentDeps, personId: string, clientId: string, orgId: string) {
  const bound = await bindingOf(d.prisma, personId, clientId);
  if (!bound || bound.orgId !== orgId) return null;
  const held = await recordHolding(d.prisma, orgId, bound.agentId);
  if (!held) return null;
  const record = agentView(held);
  return record.kind === 'mcp' && record.status === 'active' ? record : null;
}

function hostOf(uri: string): string {
  const u = new URL(uri);
  return u.host || `${u.protocol}`;
}

export async function pendingConsent(d: ConsentDeps, req: Request, caller: Caller, requestId: string, orgId: string | undefined) {
  // authorize
  requireLoginSession(caller);
  const r = await pendingRequest(d.prisma, requestId);

  // act: the organisation, its catalogs and the person's levels (409 org_required with several and none named)
  const scopes = r.scope.split(' ') as Scope[];
  const asked = levelOf(scopes);
  const cat = await deviceCatalogs(d, req, { principalId: caller.principalId, orgId, requested: [], requestedLevel: asked, ensureCatalog: false });
  const defaults = new Set(cat.requested.map((w) => w.warehouse_id));
  const organizations = await organizationsOf(d.prisma, caller.principalId);
  const existing = await existingRecord(d, caller.principalId, r.clientId, cat.organization.org_id);
  const held = new Map(existing?.grants.map((g) => [g.warehouse_id, g.level]));

  // answer
  const { redirect_uris: _uris, ...client } = r.client;
  return {
    request_id: r.id,
    expires_at: r.expiresAt.toISOString(),
    expires_in: Math.max(0, Math.floor((r.expiresAt.getTime() - Date.now()) / 1000)),
    client,
    scopes,
    scope: r.scope,
    scope_descriptions: Object.fromEntries(scopes.map((s) => [s, SCOPES[s]])),
    resource: r.resource,
    redirect_host: hostOf(r.redirectUri),
    person: { principal_id: caller.principalId, email: caller.email },
    organization: cat.organization,
    // `level`: what the page offers by default (the asked level capped by the person's); `granted`: what the existing record holds there.
    warehouses: cat.warehouses.map((w) => ({
      warehouse_id: w.warehouse_id, name: w.name, my_level: w.my_level, my_via: w.my_via, level: capped(asked, w.my_level), granted: held.get(w.warehouse_id) ?? null, default: defaults.has(w.warehouse_id),
    })),
    existing: existing && { agent_id: existing.agent_id, name: existing.name, role: existing.role, grants: existing.grants },
    organizations: organizations.map((o) => ({ org_id: o.org_id, name: o.name, handle: o.handle, role: o.role })),
    default_org_id: cat.organization.org_id,
  };
}
