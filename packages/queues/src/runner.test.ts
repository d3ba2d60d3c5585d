import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { until } from '../../../tests/support/poll';
import { defineJob, handle, NoPayload, Producers, QUEUES, queueConnection, schedule, startJobRunner, type JobRunner } from './index';

// The job runner against real Redis (BullMQ's own workers and schedulers):
// each job goes to the handler of its name with its payload parsed; a job of
// a name nobody handles here, or whose payload is refused, fails at once and
// is logged; a scheduler is upserted and its first pass runs; closing tells a
// running handler and waits for it.

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const connection = queueConnection(redisUrl);
const prefix = `floe-test-runner-${randomBytes(4).toString('hex')}:bull`;
const producers = new Producers(connection, prefix);
const logged: Array<[string, Record<string, unknown> | undefined]> = [];
const logger = { error: (message: string, meta?: Record<string, unknown>) => logged.push([message, meta]) };
const runners: JobRunner[] = [];
const start = (o: Omit<Parameters<typeof startJobRunner>[0], 'connection' | 'prefix' | 'logger'>) => {
  const runner = startJobRunner({ connection, prefix, logger, ...o });
  runners.push(runner);
  return runner;
};

afterAll(async () => {
  await Promise.allSettled(runners.map((r) => r.close()));
  await producers.close();
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

const queue = QUEUES.oauthPrune;
const add = defineJob({ queue, name: 'add', payload: z.object({ a: z.number(), b: z.number() }), options: {}, jobId: (p) => `add-${p.a}-${p.b}` });
const shout = defineJob({ queue, name: 'shout', payload: z.object({ word: z.string().transform((w) => w.toUpperCase()) }), options: {}, jobId: (p) => `shout-${p.word}` });

test('each job goes to the handler of its name, its payload parsed; others fail at once, logged in one shape', async () => {
  start({
    handlers: [
      handle(add, async (p, { job }) => ({ sum: p.a + p.b, name: job.name }), { concurrency: 2 }),
      handle(shout, async (p) => p.word, { concurrency: 2 }),
    ],
  });
  expect(await producers.enqueueAndWait(add, { a: 2, b: 3 }, 10_000)).toEqual({ sum: 5, name: 'add' });
  expect(await producers.enqueueAndWait(shout, { word: 'hey' }, 10_000)).toBe('HEY');

  // A name nobody here handles, and a payload the schema refuses: failed without a retry, though three attempts were allowed.
  // (added untyped, as a producer outside the definitions would)
  const q = new Queue(queue, { connection, prefix });
  try {
    await q.add('whisper', { word: 'psst' }, { jobId: 'whisper-1', attempts: 3 });
    await q.add('add', { a: 'two', b: 3 }, { jobId: 'add-bad', attempts: 3 });
    for (const id of ['whisper-1', 'add-bad']) await until(`${id} to fail`, async () => ((await producers.state(queue, id)) === 'failed' ? true : null), 10, 100);
    const whisper = (await q.getJob('whisper-1'))!;
    expect(whisper.failedReason).toBe('no handler for job "whisper" of queue "oauth-prune" here (it handles add, shout)');
    expect(whisper.attemptsMade).toBe(1);
    expect((await q.getJob('add-bad'))!.failedReason).toMatch(/^the payload of job "add" of queue "oauth-prune" is refused: .*\ba\b/s);
  } finally {
    await q.close();
  }
  await until('the failures to be logged', async () => (logged.length >= 2 ? true : null), 5, 50);
  expect(logged).toEqual(expect.arrayContaining([
    ['job failed', { queue, job_id: 'whisper-1', job_name: 'whisper', attempts: 1, err: expect.stringContaining('no handler for job "whisper"') }],
    ['job failed', { queue, job_id: 'add-bad', job_name: 'add', attempts: 1, err: expect.stringContaining('is refused') }],
  ]));
});

test('a scheduler is upserted with its job\'s name and options, and its first pass runs', async () => {
  const pass = defineJob({ queue: QUEUES.storagePolicies, name: 'pass', payload: NoPayload, options: { removeOnComplete: true, removeOnFail: 100 } });
  const passes: unknown[] = [];
  const runner = start({
    handlers: [handle(pass, async (p) => passes.push(p), { concurrency: 1 })],
    schedulers: [schedule(pass, { id: 'test-pass', every: 3_600_000 })],
  });
  await runner.ready;
  const q = new Queue(QUEUES.storagePolicies, { connection, prefix });
  try {
    const scheduler = await q.getJobScheduler('test-pass');
    expect(scheduler).toMatchObject({ key: 'test-pass', name: 'pass', every: 3_600_000, template: { opts: { removeOnComplete: true, removeOnFail: 100 } } });
  } finally {
    await q.close();
  }
  await until('the first pass', async () => (passes.length ? true : null), 10, 100);
  expect(passes).toEqual([{}]);
  expect([runner.queues, runner.isRunning()]).toEqual([[QUEUES.storagePolicies], true]);
});

test('close tells a running handler it is closing and waits for it', async () => {
  const loop = defineJob({ queue: QUEUES.orgErasure, name: 'loop', payload: NoPayload, options: {}, jobId: () => 'loop-1' });
  let turns = 0;
  let started = false;
  const runner = startJobRunner({
    connection, prefix, logger,
    handlers: [handle(loop, async (_, { closing }) => {
      started = true;
      while (!closing.aborted) {
        turns += 1;
        await new Promise((r) => setTimeout(r, 20));
      }
      return turns;
    })],
  });
  await producers.enqueue(loop, {});
  await until('the handler to start', async () => (started ? true : null), 10, 20);
  await runner.close();
  expect(await producers.state(QUEUES.orgErasure, 'loop-1')).toBe('completed');
  expect(runner.isRunning()).toBe(false);
});

test('handlers of one queue that disagree on its settings, or two of one job, are refused at start', () => {
  expect(() => startJobRunner({ connection, prefix, logger, handlers: [handle(add, async () => 1, { concurrency: 1 }), handle(shout, async () => 1, { concurrency: 4 })] }))
    .toThrow('the handlers of queue "oauth-prune" disagree on its concurrency');
  expect(() => startJobRunner({ connection, prefix, logger, handlers: [handle(add, async () => 1), handle(add, async () => 2)] }))
    .toThrow('two handlers for job "add" of queue "oauth-prune"');
});
