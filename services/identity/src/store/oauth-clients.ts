import type { Db, Prisma } from '@floe/db';

// Dynamically registered OAuth clients (POST /oauth/register): `metadata` is
// the registration as answered. Clients known by a metadata document URL
// have no row.

export interface RegisteredClient {
  client_name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  client_uri?: string;
  logo_uri?: string;
  application_type: 'web' | 'native';
  software_id?: string;
}

export async function insertOAuthClient(db: Db, c: { id: string; metadata: RegisteredClient; createdIp: string | null }): Promise<Date> {
  const row = await db.oAuthClient.create({
    data: { id: c.id, metadata: c.metadata as unknown as Prisma.InputJsonObject, createdIp: c.createdIp },
    select: { createdAt: true },
  });
  return row.createdAt;
}

/** The registration, its use stamped (the 90-day prune reads `last_used_at`); null for an unknown id. */
export async function useOAuthClient(db: Db, id: string): Promise<RegisteredClient | null> {
  const { count } = await db.oAuthClient.updateMany({ where: { id }, data: { lastUsedAt: new Date() } });
  if (count === 0) return null;
  const row = await db.oAuthClient.findUnique({ where: { id }, select: { metadata: true } });
  return row ? (row.metadata as unknown as RegisteredClient) : null;
}

export async function oauthClientExists(db: Db, id: string): Promise<boolean> {
  return (await db.oAuthClient.findUnique({ where: { id }, select: { id: true } })) !== null;
}
