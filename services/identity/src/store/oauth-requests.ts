import type { Db, Prisma } from '@floe/db';

// Consent requests: a checked GET /oauth/authorize waiting for a person's
// decision. `client` is the client as it stood when the request was made.

/** The client as a consent request keeps it and the consent page shows it. */
export interface ClientSnapshot {
  client_id: string;
  client_name: string | null;
  client_uri: string | null;
  logo_uri: string | null;
  host: string | null;
  registration: 'cimd' | 'dynamic';
  redirect_uris: string[];
}

export interface OAuthRequestRecord {
  id: string;
  clientId: string;
  client: ClientSnapshot;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  resource: string;
  scope: string;
  status: 'pending' | 'decided';
  expiresAt: Date;
}

export type NewOAuthRequest = Omit<OAuthRequestRecord, 'status'> & { createdIp: string | null; createdAt: Date };

export async function insertOAuthRequest(db: Db, n: NewOAuthRequest): Promise<void> {
  await db.oAuthRequest.create({ data: { ...n, client: n.client as unknown as Prisma.InputJsonObject } });
}

export async function oauthRequestById(db: Db, id: string): Promise<OAuthRequestRecord | null> {
  const r = await db.oAuthRequest.findUnique({
    where: { id },
    select: { id: true, clientId: true, client: true, redirectUri: true, state: true, codeChallenge: true, resource: true, scope: true, status: true, expiresAt: true },
  });
  return r ? { ...r, client: r.client as unknown as ClientSnapshot, status: r.status as OAuthRequestRecord['status'] } : null;
}

/** Takes a pending, unexpired request for one decision: false when another decision (or the clock) got there first. */
export async function claimOAuthRequest(db: Db, id: string, d: { decision: 'allowed' | 'denied'; decidedBy: string }): Promise<boolean> {
  const now = new Date();
  const r = await db.oAuthRequest.updateMany({
    where: { id, status: 'pending', expiresAt: { gt: now } },
    data: { status: 'decided', decision: d.decision, decidedBy: d.decidedBy, decidedAt: now },
  });
  return r.count === 1;
}

/** Gives a claimed request back (its token record could not be made): the person may decide again. */
export async function releaseOAuthRequest(db: Db, id: string): Promise<void> {
  await db.oAuthRequest.updateMany({ where: { id, status: 'decided' }, data: { status: 'pending', decision: null, decidedBy: null, decidedAt: null } });
}
