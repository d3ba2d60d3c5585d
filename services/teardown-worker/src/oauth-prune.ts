import type { PrismaClient } from '@floe/db';
import type { Logger } from '@floe/http';
import { pruneOAuth, type OAuthPruned } from './store/oauth';

// packages/queues/src/oauth-prune.ts: the cluster's OAuth housekeeping pass.

/** One pass: what it removed, logged when it removed anything. */
export async function pruneOAuthPass(d: { prisma: PrismaClient; logger: Logger }): Promise<OAuthPruned> {
  const pruned = await pruneOAuth(d.prisma);
  if (Object.values(pruned).some((n) => n > 0)) d.logger.info('oauth pruned', { ...pruned });
  return pruned;
}
