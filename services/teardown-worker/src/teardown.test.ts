import { randomBytes, randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import { beginDeletion } from '@floe/catalogs';
import { createLogger } from '@floe/http';
import { handle, Producers, QUEUES, queueConnection, startJobRunner, teardownJobId, teardownJobs } from '@floe/queues';
import { RgwStorage } from '@floe/storage';
import { until } from '../../../tests/support/poll';
import { adminStorage, storeEndpoint } from '../../../tests/support/store';
import { throwawayDatabase } from '../../../tests/support/throwaway-db';
import { teardownWarehouse, type TeardownDeps } from './teardown';
import { sweepStuckTeardowns } from './teardown-sweep';

// A teardown the store refuses, against the real Postgres, Redis (BullMQ) and
// Ceph RGW: every failed attempt is recorded in the tombstone, the job that
// used up its retries fails and is logged at error level; the sweep queues it
// (and a lost one) again, and once the store takes the calls the teardown ends
// with nothing left and the error cleared.

const db = throwawayDatabase('teardown');
const store = adminStorage();
// The same RGW, asked with a wrong admin secret: every storage step is refused (403) as a real store refuses it.
const refusing = new RgwStorage({ ...storeEndpoint(), adminAccessKey: process.env.FLOE_S3_ADMIN_ACCESS_KEY!, adminSecretKey: 'not-the-secret' });
const connection = queueConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `floe-test-teardown-${randomBytes(4).toString('hex')}:bull`;
const logger = createLogger('test', 'error');
const logged: Array<Record<string, unknown>> = [];
logger.on('data', (info) => logged.push(info));
let producers: Producers;

beforeAll(() => { producers = new Producers(connection, prefix); });
afterAll(async () => {
  await producers.close();
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

const deps = (storage: RgwStorage): TeardownDeps => ({ prisma: db.prisma(), storage, logger, config: { teardown: { graceSeconds: 0, crashAt: undefined } } });
const worker = (storage: RgwStorage) => startJobRunner({
  connection, prefix, logger, handlers: [handle(teardownJobs.teardown, (p, { job, token }) => teardownWarehouse(deps(storage), p, job, token), { concurrency: 1 })],
});
const row = async (id: string) => (await db.pool().query(`SELECT status, teardown_step, tombstone FROM warehouses WHERE id = $1`, [id])).rows[0];
const userGone = async (uid: string) => (await store.admin.call('GET', 'user', { uid }, 'get identity')) === null;

/** A catalog with real buckets, identities and role, deleted with no grace period (its teardown due at once). */
async function deletedCatalog(withStorage: boolean): Promise<{ id: string; table: string; blob: string; uid: string }> {
  const id = randomUUID();
  const table = `td-${id.slice(0, 13)}`;
  const blob = `${table}--blobs`;
  const uid = `t-${id}`;
  if (withStorage) {
    for (const b of [table, blob]) await store.ensureBucket(b);
    const keys = await store.ensureIdentity({ uid, displayName: 'teardown test', buckets: [table, blob], access: 'write', assumableRole: `w-${id}` });
    await store.ensureIdentity({ uid: `${uid}-ro`, displayName: 'teardown test ro', buckets: [table, blob], access: 'read', assumableRole: `w-${id}` });
    await store.ensureRole({ roleName: `w-${id}`, trustedUids: [uid, `${uid}-ro`], buckets: [table, blob] });
    await store.s3As(keys).send(new PutObjectCommand({ Bucket: table, Key: 'ns/t/data.parquet', Body: 'x' }));
  }
  await db.pool().query(
    `INSERT INTO warehouses (id, name, table_bucket, blob_bucket, status, storage_uid, storage_access_key, storage_secret_key,
       storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name)
     VALUES ($1, 'lake', $2, $3, 'ready', $4, '', '', $5, '', '', $6)`, [id, table, blob, uid, `${uid}-ro`, `w-${id}`]);
  await beginDeletion(db.prisma(), id, { graceSeconds: 0, reason: 'request', actor: { principalId: null, kind: null, requestId: null, ip: null } });
  return { id, table, blob, uid };
}

test('a refused teardown is recorded and logged; the sweep queues it (and a lost one) again; it ends once the store takes it', async () => {
  const w = await deletedCatalog(true);
  const lost = await deletedCatalog(false);

  // Two attempts (the second after BullMQ's 2 s backoff), both refused by the store at the first storage step.
  await producers.enqueue(teardownJobs.teardown, { warehouse_id: w.id }, { attempts: 2 });
  const failing = worker(refusing);
  try {
    await until('the job to use up its retries', async () => ((await producers.state(QUEUES.teardown, teardownJobId(w.id))) === 'failed' ? true : null), 30, 200);
  } finally {
    await failing.close();
  }
  const stuck = await row(w.id);
  expect([stuck.status, stuck.teardown_step]).toEqual(['deleting', 'storage']);
  expect(stuck.tombstone).toMatchObject({ tables_dropped: 0, storage: null, storage_complete: null });
  expect(stuck.tombstone.teardown_error).toEqual({
    message: 'list identities: access denied', step: 'uploaders', attempts: 2, failed_at: expect.any(String), gave_up: true,
  });
  expect(logged.filter((l) => l.level === 'error' && l.warehouse_id === w.id).map((l) => [l.message, l.step, l.attempts]))
    .toEqual([['catalog teardown used up its retries; the teardown sweep queues it again within the hour', 'uploaders', 2]]);
  expect(await store.bucketExists(w.table)).toBe(true);

  // The sweep: the failed job and the lost one (no job at all) are queued again, each logged at error level; a second pass finds both under way.
  expect((await sweepStuckTeardowns({ prisma: db.prisma(), logger, producers })).sort()).toEqual([w.id, lost.id].sort());
  const swept = logged.filter((l) => l.message === 'catalog teardown stuck: queued again');
  expect(swept.map((l) => [l.level, l.warehouse_id, l.job_state]).sort()).toEqual([['error', lost.id, 'unknown'], ['error', w.id, 'failed']].sort());
  expect(swept.find((l) => l.warehouse_id === w.id)?.teardown_error).toMatchObject({ step: 'uploaders', gave_up: true });
  expect(await producers.state(QUEUES.teardown, teardownJobId(w.id))).toBe('waiting');
  expect(await sweepStuckTeardowns({ prisma: db.prisma(), logger, producers })).toEqual([]);

  // The store takes the calls again: both teardowns end, the error cleared, nothing of the catalog left.
  const healthy = worker(store);
  try {
    for (const id of [w.id, lost.id]) await until('the teardown to end', async () => ((await row(id)).status === 'deleted' ? true : null), 60, 200);
  } finally {
    await healthy.close();
  }
  const done = await row(w.id);
  expect(done.tombstone).toMatchObject({
    teardown_error: null, storage_complete: true, storage: { uploaders: 0, role: 'deleted', table_bucket: { removed: true }, blob_bucket: { removed: true } },
  });
  expect(await store.bucketExists(w.table)).toBe(false);
  expect(await store.bucketExists(w.blob)).toBe(false);
  expect([await userGone(w.uid), await userGone(`${w.uid}-ro`)]).toEqual([true, true]);
  expect(await sweepStuckTeardowns({ prisma: db.prisma(), logger, producers })).toEqual([]);
}, 120_000);
