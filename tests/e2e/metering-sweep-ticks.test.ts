// The metering sweep is a BullMQ job scheduler that every metering worker
// upserts at start; with two workers (the e2e-replicas project) it must still
// be one scheduler that ticks once per period, and each tick one measurement
// per catalog (packages/queues/src/metering.ts: one job per sweep slot). The
// e2e stack sweeps every 20 s (tests/e2e/global-setup.ts).
import { Queue } from 'bullmq';
import { METERING_QUEUE, METERING_SWEEP_SCHEDULER, queuePrefix } from '@floe/queues';
import { newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';
import { sql, stack } from './helpers';

const SWEEP_SECONDS = 20;

test('the metering queue holds one sweep scheduler, every 20 s, however many workers upserted it', async () => {
  const queue = new Queue(METERING_QUEUE, { connection: { url: 'redis://127.0.0.1:6379' }, prefix: queuePrefix(stack().redis_prefix) });
  try {
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => [s.key, Number(s.every)])).toEqual([[METERING_SWEEP_SCHEDULER, SWEEP_SECONDS * 1000]]);
  } finally {
    await queue.close();
  }
});

test('each sweep tick measures a catalog once: one sample per slot, consecutive slots, no more than the periods elapsed', async () => {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const created = Date.now();
  // Long enough for two or three ticks.
  await new Promise((r) => setTimeout(r, (2.5 * SWEEP_SECONDS) * 1000));
  const elapsed = (Date.now() - created) / 1000;
  const rows = await sql<{ job_key: string }>(`SELECT job_key FROM usage_samples WHERE warehouse_id = $1 AND source = 'sweep'`, [w.warehouse_id]);
  const slots = rows.map((r) => Number(/^sweep-(\d+)-/.exec(r.job_key)?.[1])).sort((a, b) => a - b);
  expect(slots.length).toBeGreaterThanOrEqual(1);
  // A second scheduler (a worker upserting its own) would tick between these and add samples.
  expect(slots.length).toBeLessThanOrEqual(Math.floor(elapsed / SWEEP_SECONDS) + 1);
  expect(slots.at(-1)! - slots[0] + 1).toBe(slots.length);
}, 90_000);
