import type { PrismaClient } from '@floe/db';

// What the OAuth prune pass (domain/oauth-prune.ts) removes, in one
// transaction: rows of the authorization server's own tables (store/oauth-*.ts
// write them) that can do nothing more. It also prunes login sessions' retired
// refresh hashes (the same theft signal as a family's, which go with their
// family by cascade; store/retired-refresh.ts): a session expired or revoked
// no longer needs them to tell a reused token.

export const UNUSED_REGISTRATION_DAYS = 90;
/** Spent or dead rows are kept this long after they stopped mattering, for whoever looks into a complaint. */
export const KEEP_DEAD_DAYS = 30;

export interface OAuthPruned { registrations: number; requests: number; codes: number; families: number; sessionRefreshHashes: number }

export async function pruneOAuth(prisma: PrismaClient, now = new Date()): Promise<OAuthPruned> {
  const day = 86_400_000;
  const unusedSince = new Date(now.getTime() - UNUSED_REGISTRATION_DAYS * day);
  const deadSince = new Date(now.getTime() - KEEP_DEAD_DAYS * day);
  return prisma.$transaction(async (tx) => {
    const codes = await tx.oAuthCode.deleteMany({ where: { expiresAt: { lt: deadSince } } });
    const requests = await tx.oAuthRequest.deleteMany({ where: { expiresAt: { lt: deadSince } } });
    const families = await tx.oAuthGrant.deleteMany({ where: { OR: [{ expiresAt: { lt: deadSince } }, { revokedAt: { lt: deadSince } }] } });
    const sessionRefreshHashes = await tx.retiredRefreshHash.deleteMany({
      where: { session: { OR: [{ expiresAt: { lt: deadSince } }, { revokedAt: { lt: deadSince } }] } },
    });
    // Raw: "unused" is the later of creation and last use, and a registration whose refresh family still lives is in use.
    const registrations = await tx.$executeRaw`
      DELETE FROM oauth_clients c
       WHERE c.id LIKE 'dcr\\_%' AND COALESCE(c.last_used_at, c.created_at) < ${unusedSince}
         AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id AND g.revoked_at IS NULL AND g.expires_at > ${now})`;
    return { registrations, requests: requests.count, codes: codes.count, families: families.count, sessionRefreshHashes: sessionRefreshHashes.count };
  });
}
