import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { hashSecret } from '@floe/auth';
import type { FloeConfig } from '@floe/config';
import type { PrismaClient } from '@floe/db';
import { makeApprovedAgent, type AgentDeps } from '@floe/accounts';
import { deviceCatalogs, type AskedLevel as DeviceLevel, type OnboardDeps } from '@floe/catalogs';
import { badRequest, forbidden, HttpError, writeAudit, type Caller, type SqlClient } from '@floe/http';
import { bind, bindingOf, insertOAuthCode } from '../store/oauth-grants';
import { claimOAuthRequest, releaseOAuthRequest, type OAuthRequestRecord } from '../store/oauth-requests';
import { givenLevels } from './device-approval';
import { pendingRequest, requireLoginSession } from './oauth-consent';

// Spec: POST /v1/oauth/authorize/decision — the person's answer to a consent
// request, in a login session. A deny sends the client back with
// `error=access_denied`. An allow gives the client a token record of kind
// `mcp` (made by the control plane, with no API key: identity mints its access
// tokens at POST /oauth/token), or the one bound to this person and client
// with its grants replaced, then a single-use code valid 10 minutes (only its
// SHA-256 kept). One decision per request however many arrive together: the
// request is claimed by one conditional update before anything is made, and
// given back when the record cannot be made.

export const CODE_SECONDS = 600;

export type DecisionDeps = AgentDeps & OnboardDeps & { config: Pick<FloeConfig, 'baseUrl' | 'redisPrefix'> };

export type Decision =
  | { requestId: string; allow: false }
  | { requestId: string; allow: true; grants: Array<{ warehouse_id: string; level: DeviceLevel }>; orgId?: string; role: 'member' | 'admin' };

/** The client's redirect URI with these parameters added (its own query kept). */
function redirectWith(r: OAuthRequestRecord, params: Record<string, string>, iss: string): string {
  const u = new URL(r.redirectUri);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  if (r.state !== null) u.searchParams.set('state', r.state);
  u.searchParams.set('iss', iss);
  return u.href;
}

/** The request was decided (or expired) between the read and the claim: judged again as it is now. */
async function lostClaim(prisma: PrismaClient, id: string): Promise<never> {
  await pendingRequest(prisma, id);
  throw new HttpError(410, 'oauth_request_decided', 'this authorization request was decided already; the application must start again');
}

const tokenName = (r: OAuthRequestRecord, caller: Caller) =>
  `${r.client.client_name ?? r.client.host ?? r.clientId} for ${caller.email ?? caller.principalId}`.slice(0, 100);

export async function decideOAuthRequest(d: DecisionDeps, req: Request, caller: Caller, c: Decision) {
  // authorize
  requireLoginSession(caller);
  const r = await pendingRequest(d.prisma, c.requestId);
  const { redirect_uris: _uris, ...client } = r.client;
  const scope = r.scope.split(' ');

  if (!c.allow) {
    if (!(await claimOAuthRequest(d.prisma, r.id, { decision: 'denied', decidedBy: caller.principalId }))) await lostClaim(d.prisma, r.id);
    await writeAudit(d.db, req, { action: 'oauth.deny', targetType: 'oauth_request', targetId: r.id, data: { client_id: r.clientId } });
    return {
      allowed: false,
      redirect_to: redirectWith(r, { error: 'access_denied', error_description: 'the person refused this application access' }, d.config.baseUrl),
      client, scope, expires_in: null, token: null,
      note: 'Refused: the application is told so; nothing was made.',
    };
  }

  // validate: the catalogs chosen, each capped by the person's level (nothing held: refused), and the role
  if (!c.grants.length) throw badRequest('invalid_value', 'choose at least one catalog, or refuse with "allow": false', { field: 'grants' });
  const cat = await deviceCatalogs(d, req, {
    principalId: caller.principalId, orgId: c.orgId, requested: c.grants.map((g) => ({ ref: g.warehouse_id, level: g.level })), requestedLevel: 'read', ensureCatalog: false, decision: 'oauth_consent',
  });
  const given = givenLevels(cat.requested);
  const org = cat.organization;
  if (c.role === 'admin' && org.role !== 'admin') {
    throw forbidden('insufficient_role', `an admin token is for an admin of ${org.handle} to give; you are a member`, { role: org.role, needed: 'admin' });
  }

  // act: one decision; the record made (or the bound one reused), then the code
  if (!(await claimOAuthRequest(d.prisma, r.id, { decision: 'allowed', decidedBy: caller.principalId }))) await lostClaim(d.prisma, r.id);
  let record;
  try {
    const bound = await bindingOf(d.prisma, caller.principalId, r.clientId);
    record = await makeApprovedAgent(d, req, {
      orgId: org.org_id, name: tokenName(r, caller), label: 'oauth', approverId: caller.principalId, role: c.role, via: 'oauth',
      grants: given.map((g) => ({ warehouse_id: g.warehouse_id, level: g.level })),
      reuseAgentId: bound && bound.orgId === org.org_id ? bound.agentId : undefined,
    });
    await bind(d.prisma, { personId: caller.principalId, clientId: r.clientId, agentId: record.agent_id, orgId: org.org_id });
  } catch (err) {
    await releaseOAuthRequest(d.prisma, r.id);
    throw err;
  }
  const code = `oac_${randomBytes(32).toString('base64url')}`;
  await insertOAuthCode(d.prisma, {
    codeHash: hashSecret(code), requestId: r.id, clientId: r.clientId, redirectUri: r.redirectUri, codeChallenge: r.codeChallenge,
    resource: r.resource, scope: r.scope, agentId: record.agent_id, personId: caller.principalId, orgId: org.org_id,
    expiresAt: new Date(Date.now() + CODE_SECONDS * 1000),
  });
  const cappedGrants = given.filter((g) => g.level !== g.asked).map((g) => ({ warehouse_id: g.warehouse_id, name: g.name, asked: g.asked, level: g.level, my_level: g.held }));
  await writeAudit(d.db, req, {
    action: 'oauth.allow', orgId: org.org_id, targetType: 'oauth_request', targetId: r.id,
    data: { client_id: r.clientId, agent_id: record.agent_id, reused: record.reused, role: record.role, grants: record.grants, scope: r.scope },
  });
  return {
    allowed: true,
    redirect_to: redirectWith(r, { code }, d.config.baseUrl),
    client,
    scope,
    expires_in: CODE_SECONDS,
    token: {
      agent_id: record.agent_id, name: record.name, org_id: record.org_id, role: record.role, kind: 'mcp' as const,
      grants: record.grants, capped: cappedGrants, reused: record.reused, connection: record.connection,
    },
    note: record.reused
      ? `Allowed: the token record ${record.name} this application had holds exactly these catalogs now; the application exchanges the code (single use, ${CODE_SECONDS / 60} minutes).`
      : `Allowed: the token record ${record.name} (listed with the organisation's agents; revoke it there) holds these catalogs; the application exchanges the code (single use, ${CODE_SECONDS / 60} minutes).`,
  };
}
