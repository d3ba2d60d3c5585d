import type { PrismaClient } from '@floe/db';
import type { Logger } from '@floe/http';
import { pruneOAuth, type OAuthPruned } from '../store/oauth-prune';

// The authorization server's housekeeping (packages/queues/src/oauth-prune.ts
// defines the job and its scheduler; jobs.ts runs it): identity writes the
// OAuth tables, so identity removes what in them can do nothing more.
// Idempotent: a second pass finds nothing.

export interface OAuthPruneDeps {
  prisma: PrismaClient;
  logger: Logger;
}

/** One pass: what it removed, logged when it removed anything. */
export async function pruneOAuthPass(d: OAuthPruneDeps): Promise<OAuthPruned> {
  const pruned = await pruneOAuth(d.prisma);
  if (Object.values(pruned).some((n) => n > 0)) d.logger.info('oauth pruned', { ...pruned });
  return pruned;
}
