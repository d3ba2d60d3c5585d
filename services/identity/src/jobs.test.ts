import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createLogger } from '@floe/http';
import { OAUTH_PRUNE_EVERY_MS, OAUTH_PRUNE_SCHEDULER, QUEUES, queueConnection } from '@floe/queues';
import { throwawayDatabase } from '../../../tests/support/throwaway-db';
import { until } from '../../../tests/support/poll';
import { startIdentityJobs } from './jobs';

// Identity's job runner against the real Redis and Postgres: it consumes the
// oauth-prune queue, upserts the cluster's prune scheduler under the id and
// interval packages/queues defines, and the scheduler's first pass prunes.
// What a pass removes is store/oauth-prune.test.ts's.

const db = throwawayDatabase('identity_jobs');
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const connection = queueConnection(redisUrl);
const prefix = `floe-test-identity-jobs-${randomBytes(4).toString('hex')}:bull`;
const logger = createLogger('test', 'error');

afterAll(async () => {
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

test('the runner consumes oauth-prune, upserts its scheduler, and the first pass prunes a code dead for 31 days', async () => {
  await db.pool().query(
    `INSERT INTO oauth_codes (code_hash, request_id, client_id, redirect_uri, code_challenge, resource, scope, agent_id, person_id, org_id, expires_at)
     VALUES ('c_dead', 'oar_1', 'c', 'r', 'x', 'x', 's', 'a', 'p', 'o', $1), ('c_live', 'oar_2', 'c', 'r', 'x', 'x', 's', 'a', 'p', 'o', $2)`,
    [new Date(Date.now() - 31 * 86_400_000), new Date(Date.now() + 60_000)]);

  const runner = startIdentityJobs({ connection, prefix, logger, prisma: db.prisma() });
  try {
    await runner.ready;
    const q = new Queue(QUEUES.oauthPrune, { connection, prefix });
    try {
      expect(await q.getJobScheduler(OAUTH_PRUNE_SCHEDULER))
        .toMatchObject({ key: OAUTH_PRUNE_SCHEDULER, name: 'pass', every: OAUTH_PRUNE_EVERY_MS, template: { opts: { removeOnComplete: true, removeOnFail: true } } });
    } finally {
      await q.close();
    }
    const codes = async () => (await db.pool().query(`SELECT code_hash FROM oauth_codes ORDER BY 1`)).rows.map((r) => r.code_hash);
    await until('the first pass to prune the dead code', async () => ((await codes()).length === 1 ? true : null), 10, 100);
    expect(await codes()).toEqual(['c_live']);
    expect([runner.queues, runner.isRunning()]).toEqual([[QUEUES.oauthPrune], true]);
  } finally {
    await runner.close();
  }
  expect(runner.isRunning()).toBe(false);
}, 30_000);
