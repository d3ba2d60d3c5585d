// The metering worker dies in the middle of a sweep — right after a measure
// job's report is recorded, the job unfinished (FLOE_METERING_CRASH_AT) — and
// a fresh worker completes the sweep: the waiting jobs are measured, the dead
// worker's jobs are taken again once their locks lapse (BullMQ's stalled-job
// check), and every catalog ends with exactly one sample, the retried job's
// in the row its first attempt wrote.
import { Queue } from 'bullmq';
import pg from 'pg';
import request from 'supertest';
import { METERING_QUEUE, METERING_SWEEP_QUEUE, queueConnection, queuePrefix, SWEEP_JOB_OPTIONS, sweepMeasureJobId, sweepSlot } from '@floe/queues';
import { stopPid } from '../../scripts/lib/processes';
import { joinPrivateStackEnv, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';
import { until } from '../support/poll';
import { orgAdminKey } from '../support/stack-org';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

// A day: the scheduler's own ticks stay out of the way, and creation samples never come; the test queues the one sweep.
const SWEEP_SECONDS = 86_400;
const CATALOGS = 6;
const settings = { FLOE_LOG_LEVEL: 'warn', FLOE_METERING_SWEEP_SECONDS: String(SWEEP_SECONDS), FLOE_METERING_FIRST_SAMPLE_SECONDS: String(SWEEP_SECONDS) };

let stateFile: string;
let state: StackState;
/** `metering` (the scheduler, the fan-out) and `metering-sweep` (each catalog's measurement). */
let queue: Queue;
let sweepQueue: Queue;
let pool: pg.Pool;

const pendingJobs = async () => {
  let n = 0;
  for (const q of [queue, sweepQueue]) {
    const c = await q.getJobCounts('wait', 'active');
    n += c.wait + c.active;
  }
  return n;
};

beforeAll(async () => {
  ({ state, stateFile } = await startPrivateStack('metering', settings));
  pool = new pg.Pool({ connectionString: state.database_url, max: 2 });
  const connection = queueConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  queue = new Queue(METERING_QUEUE, { connection, prefix: queuePrefix(state.redis_prefix) });
  sweepQueue = new Queue(METERING_SWEEP_QUEUE, { connection, prefix: queuePrefix(state.redis_prefix) });
  // The stack's own worker runs the scheduler's first sweep (over no catalog yet; the next is a day away), then stops: this test runs its own workers.
  await until('the scheduler\'s first sweep to be taken', async () => ((await pendingJobs()) === 0 ? true : null), 30);
  await stopPid(state.services['metering-worker'].pid);
}, 240_000);

afterAll(async () => {
  await queue?.close();
  await sweepQueue?.close();
  await pool?.end();
  if (stateFile) await stopPrivateStack(stateFile);
}, 120_000);

/** A metering worker against the private stack; resolves with its exit code once it stops. */
function meteringWorker(crashAt?: 'after_report'): WorkerProcess {
  return startWorkerProcess('services/metering-worker/src/main.ts', 'FLOE_METERING_HEALTH_PORT', {
    ...process.env, ...joinPrivateStackEnv(state), ...settings, ...(crashAt ? { FLOE_METERING_CRASH_AT: crashAt } : {}),
  });
}

const samples = async () => (await pool.query<{ id: string; warehouse_id: string; job_key: string; measured_at: Date }>(
  `SELECT id::text, warehouse_id, job_key, measured_at FROM usage_samples ORDER BY id`)).rows;

test('a metering worker killed mid-sweep after a report: the next one completes the sweep with exactly one sample per catalog', async () => {
  const auth = { Authorization: `Bearer ${await orgAdminKey(state, 'metering')}` };
  const api = () => request(state.base_url);
  const project = (await api().post('/v1/projects').set(auth).send({ name: 'metered' }).expect(201)).body;
  const ids: string[] = [];
  for (let i = 0; i < CATALOGS; i++) ids.push((await api().post('/v1/warehouses').set(auth).send({ project_id: project.project_id, name: `lake_${i}` }).expect(201)).body.warehouse_id);
  expect(await samples()).toEqual([]);

  // One sweep, queued as the scheduler queues it: its fan-out gives each catalog one measure job of the sweep's slot, on metering-sweep.
  const sweep = await queue.add('sweep', {}, { ...SWEEP_JOB_OPTIONS, jobId: `fault-sweep-${Date.now()}` });
  const slot = sweepSlot(sweep.timestamp, SWEEP_SECONDS);

  // The first worker dies once its first report is recorded (four of the sweep's jobs run at a time: the sweep is part done).
  const crashing = meteringWorker('after_report');
  expect(await crashing.exited).toBe(86);
  const mid = await samples();
  expect(mid.length).toBeGreaterThanOrEqual(1);
  expect(mid.length).toBeLessThan(CATALOGS);

  // A fresh worker measures the waiting catalogs and, once the dead worker's locks lapse, takes its jobs again.
  const healthy = meteringWorker();
  try {
    await until('every measure job done', async () => ((await pendingJobs()) === 0 && (await samples()).length >= CATALOGS ? true : null), 150, 1000);
    const final = await samples();
    // Exactly one sample per catalog, each the sweep slot's job's.
    expect(final.map((s) => s.warehouse_id).sort()).toEqual([...ids].sort());
    for (const s of final) expect(s.job_key).toBe(sweepMeasureJobId(s.warehouse_id, slot));
    for (const id of ids) expect(await (await sweepQueue.getJob(sweepMeasureJobId(id, slot)))!.getState()).toBe('completed');
    // A job the dead worker had reported was measured again: its sample is the same row, with the retry's later time.
    const rewritten = mid.filter((m) => {
      const now = final.find((f) => f.id === m.id);
      return now && now.measured_at.getTime() > m.measured_at.getTime();
    });
    expect(rewritten.length).toBeGreaterThanOrEqual(1);
  } finally {
    await healthy.stop();
  }
}, 240_000);
