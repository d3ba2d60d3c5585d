import type { Db } from '@floe/db';

// The token record a person's consent gave an OAuth client (person + client →
// agent), and the authorization codes allowed consents mint (only a SHA-256
// of each code is kept).

export interface OAuthBindingRecord { personId: string; clientId: string; agentId: string; orgId: string }

export async function bindingOf(db: Db, personId: string, clientId: string): Promise<OAuthBindingRecord | null> {
  return db.oAuthBinding.findUnique({ where: { personId_clientId: { personId, clientId } }, select: { personId: true, clientId: true, agentId: true, orgId: true } });
}

export async function bind(db: Db, b: OAuthBindingRecord): Promise<void> {
  const now = new Date();
  await db.oAuthBinding.upsert({
    where: { personId_clientId: { personId: b.personId, clientId: b.clientId } },
    create: { ...b, createdAt: now, updatedAt: now },
    update: { agentId: b.agentId, orgId: b.orgId, updatedAt: now },
  });
}

export interface NewOAuthCode {
  codeHash: string;
  requestId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
  agentId: string;
  personId: string;
  orgId: string;
  expiresAt: Date;
}

export async function insertOAuthCode(db: Db, c: NewOAuthCode): Promise<void> {
  await db.oAuthCode.create({ data: c });
}
