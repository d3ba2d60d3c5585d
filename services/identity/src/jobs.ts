import { handle, OAUTH_PRUNE_EVERY_MS, OAUTH_PRUNE_SCHEDULER, oauthPruneJobs, schedule, startJobRunner, type JobRunner } from '@floe/queues';
import type { IdentityDeps } from './deps';
import { pruneOAuthPass } from './domain/oauth-prune';

// Identity's one job runner: the OAuth prune pass over the tables identity
// writes, one pass at a time per replica, and its scheduler, which every
// replica upserts and the cluster holds once (its id is its key). The queue,
// job name, scheduler id and interval are packages/queues' oauth-prune.ts, so
// a scheduler already in Redis is this one.

export type IdentityJobsDeps = Pick<IdentityDeps, 'connection' | 'prefix' | 'logger' | 'prisma'>;

export function startIdentityJobs(d: IdentityJobsDeps): JobRunner {
  return startJobRunner({
    connection: d.connection, prefix: d.prefix, logger: d.logger,
    handlers: [handle(oauthPruneJobs.pass, () => pruneOAuthPass(d), { concurrency: 1 })],
    schedulers: [schedule(oauthPruneJobs.pass, { id: OAUTH_PRUNE_SCHEDULER, every: OAUTH_PRUNE_EVERY_MS })],
  });
}
