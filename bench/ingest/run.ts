// bench/ingest: the ingest path, in one run on one private stack, beside the
// floor it stands on.
//   - the send route of ONE ingest-gateway process (on {ingest_url} directly)
//     driven by 8 concurrent producers: accepted MB/s and batches/s, beside a
//     raw PUT of the same bodies by the same producers straight to the store
//     (target ≥ 50 MB/s, ten times a managed stream's 5 MiB/s per stream; and
//     ≥ 0.8 of the raw PUT, issue 30)
//   - the raw JSON.parse rate of the same bodies on this machine, one thread
//   - rows/s a warm roller appends (target ≥ 200,000 rows/s on 2 cores): the
//     median of BENCH_ROLL_REPEATS rolls after a warm-up roll of the same size,
//     each verified against the rows sent
//
// BENCH_SECONDS (default 15) is the length of the send phase; BENCH_ROLL_ROWS
// (default 200,000; 1 MiB batches of about 12,200 rows each are sent until it
// is reached) the size of each roll; BENCH_ROLL_REPEATS (default 3) how many
// rolls are measured. BENCH_CPU_PROF=<dir> writes a CPU
// profile of every deployable there. The warehouse's buckets (about 0.8 GB of
// batches), identities and role are removed from the store at the end.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Agent, request, setGlobalDispatcher } from 'undici';
import { stackApi, useLocalCeph } from '../lib/stack-api';
import { joinPrivateStackEnv, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import { stopPid } from '../../scripts/lib/processes';

setGlobalDispatcher(new Agent({ keepAliveTimeout: 30_000, connections: 16 }));

const PRODUCERS = 8;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const ROLL_ROWS = Number(process.env.BENCH_ROLL_ROWS ?? 200_000);
const ROLL_REPEATS = Number(process.env.BENCH_ROLL_REPEATS ?? 3);
const BATCH_BYTES = 1024 * 1024;
const TARGET_MBS = 50;
const TARGET_ROWS = 200_000;
const MB = 1e6;

/** A JSON array of about `bytes` of realistic event objects, ids from `first`. */
function batchBody(first: number, bytes: number): { body: string; rows: number } {
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
  return { body: `[${parts.join(',')}]`, rows: parts.length };
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
  for (const name of ['sent', 'rolled']) await api('POST', '/v1/tables', { warehouse_id: w.warehouse_id, namespace: 'bench', name, schema });
  const sendSink = await api('POST', '/v1/sinks', { name: 'sent', table: 'bench.sent', warehouse: w.warehouse_id });
  const rollSinkRecord = await api('POST', '/v1/sinks', { name: 'rolled', table: 'bench.rolled', warehouse: w.warehouse_id });

  let seq = 0;
  const send = async (sink: { sink_id: string; send_key: string }, body: string | Buffer) => {
    const r = await request(`${state.ingest_url}/v1/sinks/${sink.sink_id}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sink.send_key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `b${seq++}` },
      body,
    });
    const text = await r.body.text();
    if (r.statusCode !== 202) throw new Error(`send: ${r.statusCode} ${text.slice(0, 200)}`);
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
    /** Sends about ROLL_ROWS rows, then rolls them: the roll's outcome, its seconds, and what was sent. */
    const sendAndRoll = async (firstId: number) => {
      let rowsSent = 0;
      let batchesSent = 0;
      while (rowsSent < ROLL_ROWS) {
        const { body, rows } = batchBody(firstId + batchesSent * 100_000, BATCH_BYTES);
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
      return { outcome, seconds, cores, rowsPerSecond: outcome.rows / seconds };
    };
    // A roller runs for days: the measured rolls are not its first. A warm-up roll of the same size compiles the
    // hot code and grows the heap to its working size (and adds __ingest_ts to the table).
    await sendAndRoll(0);
    const rolls = [];
    for (let i = 1; i <= ROLL_REPEATS; i++) rolls.push(await sendAndRoll(i * 10_000_000));
    const roll = [...rolls].sort((a, b) => a.rowsPerSecond - b.rowsPerSecond)[Math.floor(rolls.length / 2)];

    // 2. Then the send route (after the roll: its flood of writes keeps the store busy for a while): 8 producers, each posting ~1 MiB batches for SECONDS.
    // The bodies go out as ready bytes, so the producers spend as little as they can of the cores they share with the gateway.
    const generated = Array.from({ length: PRODUCERS }, (_, i) => batchBody(i * 1_000_000, BATCH_BYTES));
    const bodies = generated.map((g) => g.body);
    const payloads = bodies.map((b) => Buffer.from(b));
    for (let i = 0; i < PRODUCERS; i++) await send(sendSink, payloads[i]); // warm-up: JIT, pools, keep-alive
    let acceptedBytes = 0;
    let batches = 0;
    const gatewayPid = state.services['ingest-gateway'].pid;
    const gatewayCpu0 = cpuSecondsOf(gatewayPid);
    const machine0 = machineBusySeconds();
    const clientCpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const until = Date.now() + SECONDS * 1000;
    await Promise.all(payloads.map(async (body) => {
      while (Date.now() < until) {
        await send(sendSink, body);
        acceptedBytes += body.length;
        batches++;
      }
    }));
    const sendSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
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
    const r0 = process.hrtime.bigint();
    const rawUntil = Date.now() + SECONDS * 1000;
    await Promise.all(payloads.map(async (body, producer) => {
      for (let n = 0; Date.now() < rawUntil; n++) {
        await objects.put(where.blobBucket, `_bench/raw/${producer}/${n}.ndjson`, body, { contentType: 'application/x-ndjson', unsignedPayload: true });
        rawBytes += body.length;
        rawPuts++;
      }
    }));
    const rawSeconds = Number(process.hrtime.bigint() - r0) / 1e9;
    const rawMBs = rawBytes / MB / rawSeconds;

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

    const verdict = (ok: boolean) => (ok ? 'PASS' : 'BELOW');

    console.log(`\nbench/ingest on ${state.ingest_url} (one ingest-gateway process, measured directly, not through the public gateway)`);
    console.log(`  send route, ${PRODUCERS} producers, ${(BATCH_BYTES / 1024 / 1024).toFixed(0)} MiB batches, ${sendSeconds.toFixed(1)} s:`);
    console.log(`    accepted        ${acceptedMBs.toFixed(1)} MB/s, ${(batches / sendSeconds).toFixed(1)} batches/s   target ≥ ${TARGET_MBS} MB/s: ${verdict(acceptedMBs >= TARGET_MBS)}`);
    console.log(`    CPU             ingest-gateway ${gatewayCores === null ? 'n/a' : `${gatewayCores.toFixed(2)} cores`}, the ${PRODUCERS} producers (this process) ${clientCores.toFixed(2)} cores; the whole machine ${machineCores === null ? 'n/a' : `${machineCores.toFixed(2)} cores busy`} (the store's share is the rest), of ${availableParallelism()}`);
    console.log(`    JSON.parse      ${parseMBs.toFixed(1)} MB/s of the same bodies, one thread; accepted : parse = ${(acceptedMBs / parseMBs).toFixed(2)}`);
    console.log(`    raw PUT         ${rawMBs.toFixed(1)} MB/s, ${(rawPuts / rawSeconds).toFixed(1)} PUTs/s of the same bodies, ${PRODUCERS} producers, straight to the store as the warehouse; accepted : raw PUT = ${(acceptedMBs / rawMBs).toFixed(2)} (target ≥ 0.8): ${verdict(acceptedMBs / rawMBs >= 0.8)}`);
    console.log(`  roll: ${ROLL_REPEATS} rolls of ${roll.outcome.rows} rows in ${roll.outcome.batches} batches each, after a warm-up roll of the same size (verified: every row sent, none rejected)`);
    console.log(`    each (rows/s)   ${rolls.map((r) => Math.round(r.rowsPerSecond).toLocaleString('en-US')).join(', ')}`);
    console.log(`    phases (ms)     ${Object.entries(roll.outcome.phases ?? {}).map(([k, v]) => `${k} ${v}`).join(', ')} (the median roll)`);
    console.log(`    CPU             the roller ${roll.cores.toFixed(2)} cores (its thread and V8's helpers) during the median roll, of ${availableParallelism()}`);
    console.log(`    appended        ${Math.round(roll.rowsPerSecond).toLocaleString('en-US')} rows/s, the median (${roll.seconds.toFixed(2)} s)   target ≥ ${TARGET_ROWS.toLocaleString('en-US')} rows/s: ${verdict(roll.rowsPerSecond >= TARGET_ROWS)}`);
    console.log(`    JSON.parse      ${Math.round(parseRows).toLocaleString('en-US')} rows/s of the same rows, one thread; appended : parse = ${(roll.rowsPerSecond / parseRows).toFixed(2)}`);
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
