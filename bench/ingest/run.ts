// bench/ingest: the ingest path, in one run on one private stack, beside the
// floor it stands on.
//   - the send route of ONE ingest-gateway process (on {ingest_url} directly)
//     driven by 8 concurrent producers: accepted MB/s and batches/s, beside a
//     raw PUT of the same bodies by the same producers straight to the store
//     (target ≥ 50 MB/s, ten times a managed stream's 5 MiB/s per stream; and
//     ≥ 0.8 of the raw PUT, issue 30)
//   - the raw JSON.parse rate of the same bodies on this machine, one thread
//   - rows/s a warm roller appends: the median of BENCH_ROLL_REPEATS rolls of
//     a sink's full roll (64 MiB) after a warm-up roll of the same size, each
//     verified against the rows sent, with each phase of the median roll;
//     beside it the data-plane engine's own NDJSON → Parquet rate on the same
//     rows (issue 30: appended ≥ 0.5 of it, and ≥ 1.5 M rows/s)
//   - the roller process's peak RSS over the lag phase's rolls and over a
//     roll of one 16 MiB batch, against the stated bound
//   - the lag: p99 from send to commit over a send phase at the full rate
//     into a sink with inactivity_seconds 5, rolled by a roller process of
//     its own (target under 10 s)
//
// BENCH_SECONDS (default 15) is the length of the send phase and of the lag
// phase; BENCH_ROLL_MIB (default 64) the size of each roll, in 1 MiB batches
// of about 12,200 rows each; BENCH_ROLL_REPEATS (default 3) how many rolls
// are measured. BENCH_CPU_PROF=<dir> writes a CPU profile of every deployable
// there. The warehouse's buckets (about 1.5 GB of batches), identities and
// role are removed from the store at the end.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism } from 'node:os';
import { Agent, request, setGlobalDispatcher } from 'undici';
import { stackApi, useLocalCeph } from '../lib/stack-api';
import { joinPrivateStackEnv, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import { stopPid } from '../../scripts/lib/processes';
import { startWorkerProcess } from '../../tests/support/worker-process';

setGlobalDispatcher(new Agent({ keepAliveTimeout: 30_000, connections: 16 }));

const PRODUCERS = 8;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const ROLL_BYTES = Number(process.env.BENCH_ROLL_MIB ?? 64) * 1024 * 1024;
const ROLL_REPEATS = Number(process.env.BENCH_ROLL_REPEATS ?? 3);
const BATCH_BYTES = 1024 * 1024;
const TARGET_MBS = 50;
const TARGET_ROWS = 1_500_000;
const TARGET_ENGINE_RATIO = 0.5;
const TARGET_LAG_SECONDS = 10;
/** The roller's stated peak RSS (docs/ingest.md): during a 64 MiB roll, and a roll of one 16 MiB batch. */
const RSS_BOUND_MB = 1024;
const BIG_BATCH_BYTES = 16 * 1024 * 1024 - 64 * 1024;
const MB = 1e6;

/** About `bytes` of realistic event objects as JSON texts, ids from `first`. */
function batchLines(first: number, bytes: number): string[] {
  const parts: string[] = [];
  let size = 2;
  let id = first;
  const at = Date.parse('2026-11-23T00:00:00Z');
  while (size < bytes) {
    const row = `{"id":${id},"msg":"event ${id} from device-${id % 97}","ts":"${new Date(at + id).toISOString()}"}`;
    parts.push(row);
    size += row.length + 1;
    id++;
  }
  return parts;
}

/** The same as a JSON array body. */
function batchBody(first: number, bytes: number): { body: string; rows: number } {
  const parts = batchLines(first, bytes);
  return { body: `[${parts.join(',')}]`, rows: parts.length };
}

/** A process's peak resident set so far (VmHWM, from /proc, Linux), in MB; null elsewhere. */
function peakRssOf(pid: number): number | null {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : (Number(kb) * 1024) / MB;
  } catch {
    return null;
  }
}

/** Busy CPU seconds of the whole machine so far (every core; from /proc/stat, Linux); null elsewhere. */
function machineBusySeconds(): number | null {
  try {
    const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + steal) / 100;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuSecondsOf(pid: number): number | null {
  try {
    // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

await useLocalCeph();
const { orgAdminKey } = await import('../../tests/support/stack-org');
const { adminStorage } = await import('../../tests/support/store');

const { state, stateFile } = await startPrivateStack('bench-ingest', {
  FLOE_LOG_LEVEL: 'warn', ...(process.env.BENCH_CPU_PROF ? { FLOE_NODE_FLAGS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` } : {}),
});
let warehouse: { warehouse_id: string; bucket: string; blob_bucket: string } | undefined;
try {
  // The roll is measured in this process; the stack's own roller must not take the batches first.
  await stopPid(state.services['roller-worker'].pid);
  const api = stackApi(state, await orgAdminKey(state, 'bench'));
  const project = await api('POST', '/v1/projects', { name: 'bench' });
  const w = await api('POST', '/v1/warehouses', { project_id: project.project_id, name: 'bench_ingest' });
  warehouse = w;
  const schema = { type: 'struct', fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'msg', required: false, type: 'string' },
    { id: 3, name: 'ts', required: false, type: 'timestamptz' },
  ] };
  for (const name of ['sent', 'rolled', 'lagged']) await api('POST', '/v1/tables', { warehouse_id: w.warehouse_id, namespace: 'bench', name, schema });
  const sendSink = await api('POST', '/v1/sinks', { name: 'sent', table: 'bench.sent', warehouse: w.warehouse_id });
  const rollSinkRecord = await api('POST', '/v1/sinks', { name: 'rolled', table: 'bench.rolled', warehouse: w.warehouse_id });

  let seq = 0;
  /** Sends that answered 502 storage_error (the store too busy) and were sent again, as the answer says is safe. */
  let storageRetries = 0;
  const send = async (sink: { sink_id: string; send_key: string }, body: string | Buffer) => {
    const batchId = `b${seq++}`;
    for (let attempt = 1; ; attempt++) {
      const r = await request(`${state.ingest_url}/v1/sinks/${sink.sink_id}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${sink.send_key}`, 'Content-Type': 'application/json', 'Idempotency-Key': batchId },
        body,
      });
      const text = await r.body.text();
      if (r.statusCode === 202 || (attempt > 1 && r.statusCode === 200)) return; // 200: a retry of a batch the store did keep
      if (r.statusCode !== 502 || attempt === 5) throw new Error(`send: ${r.statusCode} ${text.slice(0, 200)}`);
      storageRetries++;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  };

  // 1. The rolls, in this process, while the store is quiet.
  Object.assign(process.env, joinPrivateStackEnv(state), { FLOE_LOG_LEVEL: 'warn' });
  const { loadConfig } = await import('@floe/config');
  const { createLogger } = await import('@floe/http');
  const { closeDeps, createDeps } = await import('../../services/roller-worker/src/deps');
  const { rollSink } = await import('../../services/roller-worker/src/roll');
  const { readWorklist, sinkStorage } = await import('../../packages/ingest/src/ledger-store');
  const config = loadConfig();
  const deps = createDeps(config, createLogger('bench-roller', 'warn'));
  try {
    const item = async () => (await readWorklist(deps.prisma)).find((i) => i.sink_id === rollSinkRecord.sink_id)!;
    /** Sends `bytes` of batches of `batchBytes` each, then rolls them: the roll's outcome, its seconds, its peak RSS, and what was sent. */
    const sendAndRoll = async (firstId: number, bytes = ROLL_BYTES, batchBytes = BATCH_BYTES) => {
      let rowsSent = 0;
      let batchesSent = 0;
      for (let sent = 0; sent < bytes; sent += batchBytes) {
        const { body, rows } = batchBody(firstId + batchesSent * 1_000_000, batchBytes);
        await send(rollSinkRecord, body);
        rowsSent += rows;
        batchesSent++;
      }
      const r0 = process.hrtime.bigint();
      const cpu0 = process.cpuUsage();
      const outcome = await rollSink(deps, await item());
      const seconds = Number(process.hrtime.bigint() - r0) / 1e9;
      const cpu = process.cpuUsage(cpu0);
      const cores = (cpu.user + cpu.system) / 1e6 / seconds;
      if (outcome.status !== 'rolled' || outcome.batches !== batchesSent || outcome.rows !== rowsSent || outcome.rejected !== 0) {
        throw new Error(`a roll appended ${outcome.rows} rows of ${outcome.batches} batches (${outcome.status}, ${outcome.rejected} rejected); ${rowsSent} rows in ${batchesSent} batches were sent`);
      }
      return { outcome, seconds, cores, rowsPerSecond: outcome.rows / seconds, firstId, batchesSent, batchBytes };
    };
    // A roller runs for days: the measured rolls are not its first. A warm-up roll of the same size compiles the
    // hot code, grows the heap to its working size, opens the engine (and adds __ingest_ts to the table).
    await sendAndRoll(0);
    const rolls = [];
    for (let i = 1; i <= ROLL_REPEATS; i++) rolls.push(await sendAndRoll(i * 100_000_000));
    const roll = [...rolls].sort((a, b) => a.rowsPerSecond - b.rowsPerSecond)[Math.floor(rolls.length / 2)];

    // 1b. The engine's own NDJSON → Parquet on the same rows (the median roll's, as local NDJSON files): DuckDB's typed
    // JSON reader straight into a zstd Parquet file, no checks, no store. The median of three after a warm-up.
    const engine = await deps.engine.get();
    const floorDir = join(engine.scratchDir, 'bench-floor');
    mkdirSync(floorDir, { recursive: true });
    const floorFiles = Array.from({ length: roll.batchesSent }, (_, b) => {
      const path = join(floorDir, `${b}.ndjson`);
      writeFileSync(path, `${batchLines(roll.firstId + b * 1_000_000, roll.batchBytes).join('\n')}\n`);
      return path;
    });
    const engineCopy = async () => {
      const t0 = process.hrtime.bigint();
      await engine.query(`COPY (SELECT * FROM read_json([${floorFiles.map((f) => `'${f}'`).join(', ')}], format = 'newline_delimited',
        columns = {id: 'BIGINT', msg: 'VARCHAR', ts: 'TIMESTAMPTZ'})) TO '${join(floorDir, 'out.parquet')}' (FORMAT parquet, COMPRESSION zstd)`);
      return roll.outcome.rows / (Number(process.hrtime.bigint() - t0) / 1e9);
    };
    await engineCopy();
    const engineRows = [await engineCopy(), await engineCopy(), await engineCopy()].sort((a, b) => a - b)[1];
    rmSync(floorDir, { recursive: true, force: true });

    // 2. Then the send route (after the roll: its flood of writes keeps the store busy for a while): 8 producers, each posting ~1 MiB batches for SECONDS.
    // The bodies go out as ready bytes, so the producers spend as little as they can of the cores they share with the gateway.
    const generated = Array.from({ length: PRODUCERS }, (_, i) => batchBody(i * 1_000_000, BATCH_BYTES));
    const bodies = generated.map((g) => g.body);
    const payloads = bodies.map((b) => Buffer.from(b));
    for (let i = 0; i < PRODUCERS; i++) await send(sendSink, payloads[i]); // warm-up: JIT, pools, keep-alive
    /** The PRODUCERS send their payloads to `sink` for SECONDS, each again as soon as it is answered. */
    const sendFor = async (sink: { sink_id: string; send_key: string }) => {
      let bytes = 0;
      let sent = 0;
      const t0 = process.hrtime.bigint();
      const until = Date.now() + SECONDS * 1000;
      await Promise.all(payloads.map(async (body) => {
        while (Date.now() < until) {
          await send(sink, body);
          bytes += body.length;
          sent++;
        }
      }));
      return { bytes, batches: sent, seconds: Number(process.hrtime.bigint() - t0) / 1e9 };
    };
    const gatewayPid = state.services['ingest-gateway'].pid;
    const gatewayCpu0 = cpuSecondsOf(gatewayPid);
    const machine0 = machineBusySeconds();
    const clientCpu0 = process.cpuUsage();
    const { bytes: acceptedBytes, batches, seconds: sendSeconds } = await sendFor(sendSink);
    const gatewayCpu1 = cpuSecondsOf(gatewayPid);
    const machine1 = machineBusySeconds();
    const clientCpu = process.cpuUsage(clientCpu0);
    const acceptedMBs = acceptedBytes / MB / sendSeconds;
    const gatewayCores = gatewayCpu0 === null || gatewayCpu1 === null ? null : (gatewayCpu1 - gatewayCpu0) / sendSeconds;
    const machineCores = machine0 === null || machine1 === null ? null : (machine1 - machine0) / sendSeconds;
    const clientCores = (clientCpu.user + clientCpu.system) / 1e6 / sendSeconds;

    // 2b. Beside it, the store's own floor: the same bodies PUT straight to the blob bucket by the same 8 producers, as the
    // warehouse's identity, with the object client and options the gateway stores a batch with (no route, no ledger, no check).
    const where = await sinkStorage(deps.prisma, sendSink.sink_id);
    const objects = deps.storage.objectsAs({ accessKeyId: where.accessKeyId, secretAccessKey: deps.keyring.open(where.sealedSecretKey) });
    let rawBytes = 0;
    let rawPuts = 0;
    const rawKeys: string[] = [];
    const raw0 = machineBusySeconds();
    const r0 = process.hrtime.bigint();
    const rawUntil = Date.now() + SECONDS * 1000;
    await Promise.all(payloads.map(async (body, producer) => {
      for (let n = 0; Date.now() < rawUntil; n++) {
        const key = `_bench/raw/${producer}/${n}.ndjson`;
        await objects.put(where.blobBucket, key, body, { contentType: 'application/x-ndjson', unsignedPayload: true });
        rawKeys.push(key);
        rawBytes += body.length;
        rawPuts++;
      }
    }));
    const rawSeconds = Number(process.hrtime.bigint() - r0) / 1e9;
    const raw1 = machineBusySeconds();
    const rawMBs = rawBytes / MB / rawSeconds;
    const rawMachineCores = raw0 === null || raw1 === null ? null : (raw1 - raw0) / rawSeconds;
    // Out of the organisation's storage at once: the free plan's 5 GiB holds the whole bench only without them.
    const storeCredentials = { accessKeyId: where.accessKeyId, secretAccessKey: deps.keyring.open(where.sealedSecretKey) };
    for (let k = 0; k < rawKeys.length; k += 1000) await deps.storage.deleteKeys(where.blobBucket, rawKeys.slice(k, k + 1000), storeCredentials);

    // 3. The floor: JSON.parse of the same bodies, one thread; its rows/s are the roll's yardstick (the roller parses every row once).
    let parsedBytes = 0;
    let parsedRows = 0;
    const p0 = process.hrtime.bigint();
    while (Number(process.hrtime.bigint() - p0) < 3e9) {
      for (const { body, rows } of generated) {
        JSON.parse(body);
        parsedBytes += Buffer.byteLength(body);
        parsedRows += rows;
      }
    }
    const parseSeconds = Number(process.hrtime.bigint() - p0) / 1e9;
    const parseMBs = parsedBytes / MB / parseSeconds;
    const parseRows = parsedRows / parseSeconds;

    // 4. The lag, last: a roller process of its own, as deployed, and a sink with inactivity_seconds 5 that the producers send to at
    // full rate for SECONDS; then p99 from send to commit over the phase, from the sink's freshness. The send phase's sink is
    // deleted first (its backlog is discarded, not rolled), so the roller has only this sink's batches to roll.
    await api('DELETE', `/v1/sinks/${sendSink.sink_id}`);
    const lagSink = await api('POST', '/v1/sinks', { name: 'lag', table: 'bench.lagged', warehouse: w.warehouse_id, inactivity_seconds: 5 });
    const lagRoller = startWorkerProcess('services/roller-worker/src/main.ts', 'FLOE_ROLLER_HEALTH_PORT', { ...process.env, FLOE_LOG_LEVEL: 'warn' });
    let lag: { batches: number; mbs: number; p99: number; rolls: number; peakMB: number | null };
    try {
      const { bytes: lagBytes, batches: lagBatches, seconds: lagSeconds } = await sendFor(lagSink);
      let rolled: any;
      for (const deadline = Date.now() + 300_000; ; await new Promise((resolve) => setTimeout(resolve, 500))) {
        rolled = await api('GET', `/v1/sinks/${lagSink.sink_id}`);
        if (rolled.lag.batches_waiting === 0 && rolled.received.batches === lagBatches) break;
        if (Date.now() > deadline) throw new Error(`the lag phase's batches did not roll: ${JSON.stringify(rolled.lag)}`);
      }
      const table = await api('GET', `/v1/table?warehouse=${w.warehouse_id}&namespace=bench&name=lagged`);
      lag = {
        batches: lagBatches, mbs: lagBytes / MB / lagSeconds, p99: rolled.freshness.send_to_commit_p99_seconds_last_hour, rolls: table.snapshots,
        peakMB: peakRssOf(lagRoller.pid),
      };
    } finally {
      await lagRoller.stop();
    }

    // 5. Memory of a roll of one 16 MiB batch (the largest a send takes): a fresh roller process whose one roll it is.
    await send(lagSink, batchBody(900_000_000, BIG_BATCH_BYTES).body);
    const bigRoller = startWorkerProcess('services/roller-worker/src/main.ts', 'FLOE_ROLLER_HEALTH_PORT', { ...process.env, FLOE_LOG_LEVEL: 'warn' });
    let bigPeakMB: number | null;
    try {
      for (const deadline = Date.now() + 120_000; ; await new Promise((resolve) => setTimeout(resolve, 250))) {
        if ((await api('GET', `/v1/sinks/${lagSink.sink_id}`)).lag.batches_waiting === 0) break;
        if (Date.now() > deadline) throw new Error('the 16 MiB batch did not roll');
      }
      bigPeakMB = peakRssOf(bigRoller.pid);
    } finally {
      await bigRoller.stop();
    }

    const verdict = (ok: boolean) => (ok ? 'PASS' : 'BELOW');

    console.log(`\nbench/ingest on ${state.ingest_url} (one ingest-gateway process, measured directly, not through the public gateway)`);
    console.log(`  send route, ${PRODUCERS} producers, ${(BATCH_BYTES / 1024 / 1024).toFixed(0)} MiB batches, ${sendSeconds.toFixed(1)} s:`);
    console.log(`    accepted        ${acceptedMBs.toFixed(1)} MB/s, ${(batches / sendSeconds).toFixed(1)} batches/s   target ≥ ${TARGET_MBS} MB/s: ${verdict(acceptedMBs >= TARGET_MBS)}`);
    console.log(`    CPU             ingest-gateway ${gatewayCores === null ? 'n/a' : `${gatewayCores.toFixed(2)} cores`}, the ${PRODUCERS} producers (this process) ${clientCores.toFixed(2)} cores; the whole machine ${machineCores === null ? 'n/a' : `${machineCores.toFixed(2)} cores busy`} (the store's share is the rest), of ${availableParallelism()}`);
    console.log(`    JSON.parse      ${parseMBs.toFixed(1)} MB/s of the same bodies, one thread; accepted : parse = ${(acceptedMBs / parseMBs).toFixed(2)}`);
    console.log(`    raw PUT         ${rawMBs.toFixed(1)} MB/s, ${(rawPuts / rawSeconds).toFixed(1)} PUTs/s of the same bodies, ${PRODUCERS} producers, straight to the store as the warehouse (the whole machine ${rawMachineCores === null ? 'n/a' : `${rawMachineCores.toFixed(2)} cores busy`}); accepted : raw PUT = ${(acceptedMBs / rawMBs).toFixed(2)} (target ≥ 0.8): ${verdict(acceptedMBs / rawMBs >= 0.8)}`);
    console.log(`  roll: ${ROLL_REPEATS} rolls of ${roll.outcome.rows} rows in ${roll.outcome.batches} batches (${(ROLL_BYTES / 1024 / 1024).toFixed(0)} MiB) each, after a warm-up roll of the same size (verified: every row sent, none rejected)`);
    console.log(`    each (rows/s)   ${rolls.map((r) => Math.round(r.rowsPerSecond).toLocaleString('en-US')).join(', ')}`);
    console.log(`    phases (ms)     ${Object.entries(roll.outcome.phases ?? {}).map(([k, v]) => `${k} ${v}`).join(', ')} (the median roll; ${roll.outcome.files} data file(s), ${roll.outcome.batchesReadInJs} batch(es) read the JavaScript way)`);
    console.log(`    CPU             the roller ${roll.cores.toFixed(2)} cores (its thread, V8's helpers and the engine's threads) during the median roll, of ${availableParallelism()}`);
    console.log(`    appended        ${Math.round(roll.rowsPerSecond).toLocaleString('en-US')} rows/s, the median (${roll.seconds.toFixed(2)} s)   target ≥ ${TARGET_ROWS.toLocaleString('en-US')} rows/s: ${verdict(roll.rowsPerSecond >= TARGET_ROWS)}`);
    console.log(`    engine's own    ${Math.round(engineRows).toLocaleString('en-US')} rows/s: DuckDB's typed NDJSON reader to zstd Parquet on the same rows, local files; appended : engine = ${(roll.rowsPerSecond / engineRows).toFixed(2)} (target ≥ ${TARGET_ENGINE_RATIO}): ${verdict(roll.rowsPerSecond / engineRows >= TARGET_ENGINE_RATIO)}`);
    console.log(`    JSON.parse      ${Math.round(parseRows).toLocaleString('en-US')} rows/s of the same rows, one thread; appended : parse = ${(roll.rowsPerSecond / parseRows).toFixed(2)}`);
    console.log(`  lag: ${lag.batches} batches (${lag.mbs.toFixed(1)} MB/s by ${PRODUCERS} producers for ${SECONDS} s) into a sink with inactivity_seconds 5, rolled by a roller process in ${lag.rolls} rolls`);
    console.log(`    send → commit   p99 ${lag.p99.toFixed(1)} s over the phase   target < ${TARGET_LAG_SECONDS} s: ${verdict(lag.p99 < TARGET_LAG_SECONDS)}`);
    const mb = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(0)} MB`);
    console.log(`  roller memory: peak RSS (VmHWM) of the roller process ${mb(lag.peakMB)} over the lag phase's rolls (up to 128 MiB each); of a fresh roller whose one roll is one ${(BIG_BATCH_BYTES / 1024 / 1024).toFixed(1)} MiB batch ${mb(bigPeakMB)}   bound ${RSS_BOUND_MB} MB: ${verdict(lag.peakMB !== null && bigPeakMB !== null && Math.max(lag.peakMB, bigPeakMB) <= RSS_BOUND_MB)}`);
    if (storageRetries) console.log(`  (${storageRetries} sends answered 502 storage_error, the store too busy, and were sent again)`);
  } finally {
    await closeDeps(deps);
  }
} finally {
  await stopPrivateStack(stateFile);
  // The stack's database goes with it, but not what its warehouse put in the store.
  if (warehouse) {
    const store = adminStorage();
    for (const bucket of [warehouse.bucket, warehouse.blob_bucket]) await store.removeBucket(bucket).catch((err) => console.error(`removing ${bucket}: ${(err as Error).message}`));
    for (const uid of [`t-${warehouse.warehouse_id}`, `t-${warehouse.warehouse_id}-ro`]) await store.deleteIdentity(uid).catch(() => undefined);
    await store.deleteRole(`w-${warehouse.warehouse_id}`).catch(() => undefined);
  }
}
