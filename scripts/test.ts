// `npm test`: typecheck, then every jest project: unit and integration tests
// against the real Postgres, Redis and Ceph RGW, end-to-end tests against a
// stack the e2e project starts and stops itself, chosen end-to-end files again
// against a stack with two replicas of each deployable, and last the fault tests that
// stop or restart parts of a stack (two at a time, each on its own stack; the
// shared radosgw's restart alone). Extra arguments go to jest.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '@floe/config';
import { ensureCeph } from './lib/ceph';
import { ensureDebianTools } from './lib/debian-tools';
import { ensurePostgres, ensureRedis } from './lib/infra';
import { ROOT } from './lib/stack-env';

const say = (line: string) => process.stdout.write(`[test] ${line}\n`);
// A lifecycle day lasts this many seconds on the test cluster.
const LC_DEBUG_INTERVAL = 10;

async function run(label: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  say(label);
  const started = Date.now();
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env });
  if (r.status !== 0) {
    say(`${label}: failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
  say(`${label}: ok in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

const config = loadConfig();
await ensurePostgres(config.databaseUrl);
await ensureRedis(config.redisUrl);
ensureDebianTools(say);
const started = Date.now();
// Ceph is left running afterwards, like Postgres and Redis: every stop and
// start of a Pacific OSD is a chance for it to come back broken (see
// infra/ceph/README.md), and `infra/ceph/ceph.sh stop` is there when wanted.
const ceph = await ensureCeph({ lcDebugIntervalSeconds: LC_DEBUG_INTERVAL });
say(`Ceph RGW ready at ${ceph.endpoint} in ${((Date.now() - started) / 1000).toFixed(1)} s`);

const env: NodeJS.ProcessEnv = {
  ...process.env,
  FLOE_LOG_LEVEL: process.env.FLOE_LOG_LEVEL ?? 'warn',
  FLOE_S3_URL: ceph.endpoint,
  FLOE_S3_REGION: ceph.region,
  FLOE_S3_ADMIN_ACCESS_KEY: ceph.accessKey,
  FLOE_S3_ADMIN_SECRET_KEY: ceph.secretKey,
  FLOE_TEST_LC_DEBUG_INTERVAL: String(LC_DEBUG_INTERVAL),
};
const jest = (args: string[]) => [
  '--experimental-vm-modules', '--no-warnings=ExperimentalWarning',
  join(ROOT, 'node_modules/jest/bin/jest.js'), '--ci', ...args,
];
const extra = process.argv.slice(2);
/** The one fault test that restarts the radosgw every other test shares. */
const SHARED_RGW_FAULT_TEST = 'tests/fault/rgw-restart.test.ts';

// FLOE_SKIP_TYPECHECK=1 for a quick focused run (jest strips types; the full suite always typechecks).
if (process.env.FLOE_SKIP_TYPECHECK !== '1' || !extra.length) {
  await run('typecheck', process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit']);
}
if (extra.length) {
  await run('jest', process.execPath, jest(extra), env);
} else {
  // Three files at once on two cores: most of an e2e file's time is waiting on the stack and the store
  // (1,287 s in band, 746 s with three workers).
  await run('jest: unit, integration, end-to-end', process.execPath, jest(['--selectProjects', 'unit', 'e2e', '--maxWorkers=3']), env);
  // The cross-service e2e files again on a second private stack with two processes of every deployable
  // (jest.config.mjs REPLICA_SUITES); the first stack is down by now (the e2e teardown).
  // Two files at a time (about 145 s where one at a time took 210).
  await run('jest: end-to-end with two replicas of each deployable', process.execPath, jest(['--selectProjects', 'e2e-replicas', '--maxWorkers=2']), env);
  // Each fault test runs on a private stack of its own (the storage outages on a radosgw of their own
  // port), so two go at once; the one that restarts the shared radosgw goes alone, last.
  await run('jest: fault tests (two at a time)', process.execPath, jest(['--selectProjects', 'fault', '--maxWorkers=2', '--testPathIgnorePatterns', SHARED_RGW_FAULT_TEST]), env);
  await run('jest: the radosgw restart (alone)', process.execPath, jest(['--selectProjects', 'fault', '--runInBand', SHARED_RGW_FAULT_TEST]), env);
}
