import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { z } from 'zod';
import {
  catalogPurgeJobs, credentialJobs, defineJob, maintenanceJobs, meteringJobs, meteringSweepJobs, oauthPruneJobs, orgErasureJobs, Producers, provisioningJobs, QUEUES,
  queueConnection, sinkJobs, storagePolicyJobs, teardownJobs, teardownSweepJobs, uploaderExpiryJobs, type JobDefinition,
} from './index';

// A defined job added through Producers.enqueue (real Redis, BullMQ's own
// queue): the payload is parsed first (a refused one adds nothing), the
// definition's options and job id are applied, a producer's own options go
// over them. And the definitions keep the queue names, job names, ids and
// options running stacks hold.

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const connection = queueConnection(redisUrl);
const prefix = `floe-test-job-${randomBytes(4).toString('hex')}:bull`;
const producers = new Producers(connection, prefix);
const queue = new Queue(QUEUES.credentials, { connection, prefix });

afterAll(async () => {
  await producers.close();
  await queue.close();
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

const greet = defineJob({
  queue: QUEUES.credentials, name: 'greet', payload: z.object({ to: z.string().min(1) }),
  options: { attempts: 3, backoff: { type: 'fixed', delay: 1000 }, delay: 60_000 },
  jobId: (p) => `greet-${p.to}`,
});

test('enqueue: the id from the payload, the options of the definition, the producer\'s over them', async () => {
  expect(await producers.enqueue(greet, { to: 'ada' })).toBe('greet-ada');
  const job = (await queue.getJob('greet-ada'))!;
  expect([job.name, job.data]).toEqual(['greet', { to: 'ada' }]);
  expect(job.opts).toMatchObject({ attempts: 3, backoff: { type: 'fixed', delay: 1000 }, delay: 60_000, removeOnComplete: 1000, removeOnFail: 1000 });

  await producers.enqueue(greet, { to: 'bob' }, { delay: 5_000, priority: 3 });
  expect((await queue.getJob('greet-bob'))!.opts).toMatchObject({ attempts: 3, delay: 5_000, priority: 3 });

  // A second enqueue of one subject adds nothing: the job id is the subject's.
  await producers.enqueue(greet, { to: 'ada' }, { delay: 1 });
  expect((await queue.getJob('greet-ada'))!.opts.delay).toBe(60_000);
});

test('enqueue: a payload the schema refuses is refused, and nothing is queued', async () => {
  const before = (await queue.getJobs()).length;
  await expect(producers.enqueue(greet, { to: '' })).rejects.toThrow(z.ZodError);
  // @ts-expect-error a payload of the wrong shape does not compile either
  await expect(producers.enqueue(greet, { name: 'eve' })).rejects.toThrow(z.ZodError);
  expect((await queue.getJobs()).length).toBe(before);
});

test('enqueueMany adds each with its own id, in one round trip', async () => {
  expect(await producers.enqueueMany(greet, [{ to: 'cy' }, { to: 'di' }], { priority: 10 })).toEqual(['greet-cy', 'greet-di']);
  for (const id of ['greet-cy', 'greet-di']) expect((await queue.getJob(id))!.opts).toMatchObject({ attempts: 3, priority: 10, removeOnFail: 1000 });
});

test('a sweep\'s measurements wait in their queue\'s plain list, where the autoscaler counts them', async () => {
  const sweepQueue = new Queue(QUEUES.meteringSweep, { connection, prefix });
  const redis = new Redis(redisUrl);
  try {
    const ids = await producers.enqueueMany(meteringSweepJobs.measure, ['w1', 'w2'].map((w) => ({ warehouse_id: w, source: 'sweep' as const, slot: 7 })));
    expect(ids).toEqual(['sweep-7-w1', 'sweep-7-w2']);
    expect(await redis.llen(`${prefix}:metering-sweep:wait`)).toBe(2);
    expect(await sweepQueue.getJobCounts('wait', 'prioritized')).toEqual({ wait: 2, prioritized: 0 });
  } finally {
    await sweepQueue.close();
    await redis.quit();
  }
});

test('the definitions keep the queue and job names, ids and options running stacks hold', () => {
  const at = <S extends z.ZodType>(def: JobDefinition<S>, payload: unknown) => [def.queue, def.name, def.jobId?.(def.payload.parse(payload)) ?? null, def.options];
  const table = { namespace: ['events'], table: 'clicks' };
  expect(at(maintenanceJobs.maintain, { warehouse_id: 'w1', ...table, kinds: ['compact'], trigger: { type: 'sweep', detail: '' }, requested_by: null }))
    .toEqual(['maintenance', 'maintain', `maintain-w1-${Buffer.from(JSON.stringify([['events'], 'clicks'])).toString('base64url')}`, { removeOnComplete: true, removeOnFail: true, attempts: 2, backoff: { type: 'exponential', delay: 5000 } }]);
  expect(maintenanceJobs.plan.jobId({ warehouse_id: 'w1', ...table, kinds: ['compact'] })).toMatch(/^plan-[0-9a-f]{16}$/);
  expect([maintenanceJobs.plan.name, maintenanceJobs.plan.options]).toEqual(['plan', { removeOnComplete: { age: 300 }, removeOnFail: { age: 300 }, attempts: 1 }]);
  expect(at(maintenanceJobs.sweep, {})).toEqual(['maintenance', 'sweep', null, { removeOnComplete: true, removeOnFail: 100 }]);
  const measure = { removeOnComplete: 1000, removeOnFail: 1000, attempts: 3, backoff: { type: 'exponential', delay: 2000 } };
  expect(at(meteringSweepJobs.measure, { warehouse_id: 'w1', source: 'sweep', slot: 7 })).toEqual(['metering-sweep', 'measure', 'sweep-7-w1', measure]);
  expect(at(meteringJobs.measure, { warehouse_id: 'w1', source: 'creation' })).toEqual(['metering', 'measure', 'creation-w1', measure]);
  expect(at(meteringJobs.measure, { warehouse_id: 'w1', source: 'creation', restored_at: '2026-01-01T00:00:00.000Z' }))
    .toEqual(['metering', 'measure', `restore-${Date.parse('2026-01-01T00:00:00.000Z')}-w1`, measure]);
  // A sweep's measurement is queued only on its own queue, with its slot; `metering` still runs one queued there before.
  expect(() => meteringJobs.measure.jobId({ warehouse_id: 'w1', source: 'sweep', slot: 7 })).toThrow(/goes to the metering-sweep queue/);
  expect(meteringJobs.measure.payload.safeParse({ warehouse_id: 'w1', source: 'sweep', slot: 7 }).success).toBe(true);
  for (const refused of [{ warehouse_id: 'w1', source: 'sweep' }, { warehouse_id: 'w1', source: 'creation', slot: 7 }]) {
    expect(meteringSweepJobs.measure.payload.safeParse(refused).success).toBe(false);
  }
  expect(at(meteringJobs.sweep, {})).toEqual(['metering', 'sweep', null, { removeOnComplete: true, removeOnFail: 100 }]);
  expect(at(sinkJobs.roll, { sink_id: 's1', warehouse_id: 'w1', namespace: 'n', table_name: 't', state: 'active' }))
    .toEqual(['sink-roll', 'roll', 'roll-s1', { removeOnComplete: true, removeOnFail: true }]);
  expect(at(sinkJobs.tick, {})).toEqual(['sink-tick', 'tick', null, { removeOnComplete: true, removeOnFail: true }]);
  expect(at(catalogPurgeJobs.pass, {})).toEqual(['catalog-purge', 'pass', null, { removeOnComplete: true, removeOnFail: true }]);
  expect(at(teardownJobs.teardown, { warehouse_id: 'w1' }))
    .toEqual(['teardown', 'teardown', 'teardown-w1', { attempts: 16, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true, removeOnFail: 1000 }]);
  expect(at(teardownSweepJobs.pass, {})).toEqual(['teardown-sweep', 'pass', null, { removeOnComplete: true, removeOnFail: true }]);
  expect(at(provisioningJobs.probe, { warehouse_id: 'w1', until: 'x' })).toEqual(['provisioning', 'probe', 'provision-w1', { delay: 30_000 }]);
  expect(at(credentialJobs.retire, { warehouse_id: 'w1', client_id: 'c1', rotated_by: null, org_id: null, request_id: null }))
    .toEqual(['credentials', 'retire', 'retire-c1', { delay: 10_000, attempts: 10, backoff: { type: 'exponential', delay: 2000 } }]);
  expect(at(uploaderExpiryJobs.expire, { uploader_id: 'u1' }))
    .toEqual(['uploader-expiry', 'expire', 'expire-u1', { removeOnComplete: true, removeOnFail: 1000, attempts: 10, backoff: { type: 'exponential', delay: 2000 } }]);
  expect(at(uploaderExpiryJobs.sweep, {})).toEqual(['uploader-expiry', 'sweep', null, { removeOnComplete: true, removeOnFail: true }]);
  expect(at(oauthPruneJobs.pass, {})).toEqual(['oauth-prune', 'pass', null, { removeOnComplete: true, removeOnFail: true }]);
  expect(at(storagePolicyJobs.pass, {})).toEqual(['storage-policies', 'pass', null, { removeOnComplete: true, removeOnFail: 100 }]);
  expect(at(orgErasureJobs.pass, {})).toEqual(['org-erasure', 'pass', null, { removeOnComplete: true, removeOnFail: true }]);
});
