// bench/metering: what one metering sweep costs, in one run on one private
// stack, beside the floor it stands on (the issue's text: one sweep over
// 1,000 catalogs, most empty, a few with 100,000 objects, per catalog, beside
// one admin bucket-stats call, and POST …/measure on a 50,000-object bucket).
//   - one sweep over BENCH_CATALOGS catalogs (default 1,000: all empty but
//     BENCH_BIG of them, default 3, holding BENCH_BIG_OBJECTS objects each,
//     default 100,000, and one holding BENCH_MEASURE_OBJECTS, default 50,000),
//     per catalog: from queuing the sweep job to the last catalog's sample
//     written by the control plane (the stack's own metering worker); and
//     each full catalog's measure job beside the median empty one's, from the
//     queue's own processing times: the sweep's cost grows with catalogs, not
//     with objects
//   - one RGW admin bucket-stats call (the floor), on an empty bucket and on a
//     100,000-object one: its cost does not grow with objects either
//   - POST /v1/warehouses/{id}/measure (a listing, at most 50 pages of 1,000)
//     on the 50,000-object bucket: a whole listing, complete, not a capped one
//     of a larger bucket
// Target: a sweep costs under 3x the bucket-stats floor per catalog.
// The empty catalogs are rows and buckets made directly (their identities are
// not needed to be measured); the stack removes every bucket when it stops.
import { randomUUID } from 'node:crypto';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Queue } from 'bullmq';
import pg from 'pg';
import { Agent, setGlobalDispatcher } from 'undici';
import { METERING_QUEUE, METERING_SWEEP_QUEUE, queueConnection, queuePrefix } from '@floe/queues';
import { stackApi, useLocalCeph } from '../lib/stack-api';
import { startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';

setGlobalDispatcher(new Agent({ keepAliveTimeout: 30_000, connections: 16 }));

const CATALOGS = Number(process.env.BENCH_CATALOGS ?? 1000);
const BIG = Number(process.env.BENCH_BIG ?? 3);
const BIG_OBJECTS = Number(process.env.BENCH_BIG_OBJECTS ?? 100_000);
const MEASURE_OBJECTS = Number(process.env.BENCH_MEASURE_OBJECTS ?? 50_000);
const PUT_PARALLEL = 64;

const now = () => performance.now();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);

const ceph = await useLocalCeph();
const { orgAdminKey } = await import('../../tests/support/stack-org');
const { adminStorage } = await import('../../tests/support/store');
const store = adminStorage();

// The stack's own scheduler stays out of the way: the bench queues the one sweep it times.
const { state, stateFile } = await startPrivateStack('bench-metering', {
  FLOE_LOG_LEVEL: 'warn', FLOE_METERING_SWEEP_SECONDS: '86400', FLOE_METERING_FIRST_SAMPLE_SECONDS: '86400',
});
const pool = new pg.Pool({ connectionString: state.database_url, max: 4 });
const queue = new Queue(METERING_QUEUE, { connection: queueConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), prefix: queuePrefix(state.redis_prefix) });
// The sweep's measure jobs run on their own queue (packages/queues metering.ts), where their times are read.
const sweepQueue = new Queue(METERING_SWEEP_QUEUE, { connection: queueConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), prefix: queuePrefix(state.redis_prefix) });
try {
  const api = stackApi(state, await orgAdminKey(state, 'bench'));
  const project = await api('POST', '/v1/projects', { name: 'bench' });

  // the full catalogs, through the API; objects by many small PUTs in parallel
  const s3 = new S3Client({ endpoint: ceph.endpoint, region: ceph.region, forcePathStyle: true, credentials: { accessKeyId: ceph.accessKey, secretAccessKey: ceph.secretKey } });
  const fullCatalog = async (name: string, objects: number) => {
    const w: { warehouse_id: string; bucket: string } = await api('POST', '/v1/warehouses', { project_id: project.project_id, name });
    const t0 = now();
    let next = 0;
    await Promise.all(Array.from({ length: PUT_PARALLEL }, async () => {
      for (let k = next++; k < objects; k = next++) {
        const put = () => s3.send(new PutObjectCommand({ Bucket: w.bucket, Key: `data/${String(k).padStart(7, '0')}.bin`, Body: 'x' }));
        // The store is shared with other runs: a PUT dropped under load is sent again.
        for (let attempt = 1; ; attempt++) {
          try {
            await put();
            break;
          } catch (err) {
            if (attempt >= 5) throw err;
            await new Promise((r) => setTimeout(r, 200 * attempt));
          }
        }
      }
    }));
    say(`${w.bucket}: ${objects} objects written in ${((now() - t0) / 1000).toFixed(1)} s`);
    return w;
  };
  const big: Array<{ warehouse_id: string; bucket: string }> = [];
  for (let i = 0; i < BIG; i++) big.push(await fullCatalog(`bench_big_${i}`, BIG_OBJECTS));
  const measured = await fullCatalog('bench_measure', MEASURE_OBJECTS);
  const FULL = BIG + 1;

  // the empty catalogs: rows in the stack's database and their two buckets
  const t1 = now();
  const { rows: [p] } = await pool.query(`SELECT org_id FROM projects WHERE id = $1`, [project.project_id]);
  let made = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (made < CATALOGS - FULL) {
      made++;
      const id = randomUUID();
      const table = `bench-${id}`;
      await store.ensureBucket(table);
      await store.ensureBucket(`${table}-b`);
      await pool.query(
        `INSERT INTO warehouses (id, name, project_id, org_id, table_bucket, blob_bucket, status, storage_uid, storage_access_key, storage_secret_key,
           storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name)
         VALUES ($1, $2, $3, $4, $5, $6, 'ready', '', '', '', '', '', '', '')`, [id, `e_${id.slice(0, 8)}`, project.project_id, p.org_id, table, `${table}-b`]);
    }
  }));
  const { rows: [{ n }] } = await pool.query(`SELECT count(*)::int AS n FROM warehouses WHERE status = 'ready'`);
  say(`${n} live catalogs (${n - FULL} empty made in ${((now() - t1) / 1000).toFixed(1)} s)`);

  // the floor: one admin bucket-stats call, on an empty bucket and on a full one
  const statsMs = async (bucket: string) => {
    const xs: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = now();
      await store.bucketStats(bucket);
      xs.push(now() - t);
    }
    return median(xs);
  };
  const { rows: [empty] } = await pool.query(`SELECT table_bucket FROM warehouses WHERE table_bucket LIKE 'bench-%' LIMIT 1`);
  const floorEmpty = await statsMs(empty.table_bucket);
  const floorFull = big.length ? await statsMs(big[0].bucket) : floorEmpty;

  // one sweep, timed from queuing it to the last catalog's sample
  const t2 = now();
  await queue.add('sweep', {}, { jobId: `bench-sweep-${Date.now()}` });
  let samples = 0;
  while (samples < n) {
    await new Promise((r) => setTimeout(r, 100));
    samples = (await pool.query(`SELECT count(DISTINCT warehouse_id)::int AS c FROM usage_samples WHERE source = 'sweep'`)).rows[0].c;
    if (now() - t2 > 30 * 60_000) throw new Error(`the sweep did not finish in 30 minutes (${samples} of ${n})`);
  }
  const sweepMs = now() - t2;
  const perCatalog = sweepMs / n;

  // each measure job's own time (BullMQ's processedOn → finishedOn; the job id is the sample's job_key): full beside empty
  const { rows: jobs } = await pool.query<{ warehouse_id: string; job_key: string; objects: string }>(
    `SELECT warehouse_id, job_key, objects::text FROM usage_samples WHERE source = 'sweep'`);
  const jobMs = async (jobKey: string) => {
    const job = await sweepQueue.getJob(jobKey);
    return job?.processedOn && job.finishedOn ? job.finishedOn - job.processedOn : null;
  };
  const fullIds = new Set([...big, measured].map((w) => w.warehouse_id));
  const emptyJobMs = (await Promise.all(jobs.filter((j) => !fullIds.has(j.warehouse_id)).map((j) => jobMs(j.job_key)))).filter((x): x is number => x !== null);
  const fullJobs = await Promise.all([...big, measured].map(async (w) => {
    const j = jobs.find((x) => x.warehouse_id === w.warehouse_id)!;
    return { bucket: w.bucket, objects: Number(j.objects), ms: await jobMs(j.job_key) };
  }));

  // the listing measure on the 50,000-object bucket (50 pages of 1,000)
  const t3 = now();
  const m = await api('POST', `/v1/warehouses/${measured.warehouse_id}/measure`, {});
  const measureMs = now() - t3;
  const floorMeasured = await statsMs(measured.bucket);

  const fmt = (ms: number | null) => (ms === null ? 'n/a' : `${ms.toFixed(0)} ms`);
  process.stdout.write([
    '',
    `metering sweep over ${n} catalogs (${n - FULL} empty, ${BIG} with ${BIG_OBJECTS} objects, 1 with ${MEASURE_OBJECTS})`,
    `  one sweep                         ${(sweepMs / 1000).toFixed(2)} s   = ${perCatalog.toFixed(2)} ms per catalog (2 buckets, a report, the enforcement check)`,
    `  admin bucket-stats call (floor)   ${floorEmpty.toFixed(2)} ms on an empty bucket, ${floorFull.toFixed(2)} ms on one with ${BIG_OBJECTS} objects`,
    `  sweep per catalog / floor         ${(perCatalog / floorEmpty).toFixed(2)}x   (target < 3x)`,
    `  one measure job (4 at a time)     median ${fmt(median(emptyJobMs))} for the ${emptyJobMs.length} empty catalogs; ${fullJobs.map((f) => `${fmt(f.ms)} for ${f.objects} objects`).join(', ')}`,
    `  POST …/measure (listing) on the ${MEASURE_OBJECTS}-object bucket   ${measureMs.toFixed(0)} ms (${m.pages} pages, objects ${m.objects}, complete ${m.complete}) = ${(measureMs / floorMeasured).toFixed(0)}x one bucket-stats call on it, ${(measureMs / perCatalog).toFixed(0)}x a sweep's cost per catalog`,
    '',
  ].join('\n'));
} finally {
  await queue.close();
  await sweepQueue.close();
  await pool.end();
  await stopPrivateStack(stateFile);
}
