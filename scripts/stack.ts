// npm start            → start (foreground; restarts a deployable that exits, see lib/supervisor.ts; Ctrl-C stops everything it started)
// npm run stack:up     → up (background; pids and logs under .data/, state in .data/stack.json)
// npm run stack:down   → down
// npm run stack:status → status
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { alive, lastLines } from './lib/processes';
import { readState, stackStatus, startStack, stopStack, writeState, type StackState } from './lib/stack';
import { ROOT, stackPaths } from './lib/stack-env';
import { RESTART_POLICY, supervise } from './lib/supervisor';

const say = (line = '') => process.stdout.write(`${line}\n`);
const paths = stackPaths();

function firstStep(state: StackState): void {
  say('');
  say('Floe is up.');
  say(`  base_url     ${state.base_url}`);
  say(`  catalog_url  ${state.catalog_url}   (Iceberg REST catalog; accepts catalog credentials only)`);
  say(`  s3_url       ${state.s3_url}   (Ceph RGW, state under .data/ceph)`);
  say(`  ingest_url   ${state.ingest_url}   (sink send route and device route /d/<token>)`);
  if (state.mcp_url) say(`  mcp_url      ${state.mcp_url}   (Floe's MCP tool server for assistants; OAuth, see docs/mcp.md)`);
  if (state.mail_inbox_url) say(`  mail inbox   ${state.mail_inbox_url}   (the development mail server: every mail the stack sends)`);
  if (state.identity_provider_url) say(`  sign-in IdP  ${state.identity_provider_url}   (the development OpenID Connect provider: any e-mail address signs in, any password)`);
  for (const [name, s] of Object.entries(state.services)) say(`  ${name.padEnd(12)} ${s.url}  pid ${s.pid}  log ${relative(process.cwd(), s.log)}`);
  say('');
  say('First step: sign up (one call on a local stack: an account, its API key, an organisation, a project and the catalog `lake`):');
  say(`  curl -s -X POST ${state.base_url}/v1/signup -H 'Content-Type: application/json' \\`);
  say(`    -d '{"email":"you@example.com","workspace":"acme","engine":"duckdb","accept_terms":true}'`);
  say('Keep the api_key it prints (shown once), then:');
  say(`  curl -s ${state.base_url}/v1/warehouses -H "Authorization: Bearer <api_key>"`);
  say(`  curl -s "${state.base_url}/v1/connection?warehouse=lake&engine=pyiceberg" -H "Authorization: Bearer <api_key>"`);
  say('');
}

async function up(): Promise<void> {
  const current = await stackStatus(paths);
  if (current && Object.values(current).every((s) => s.healthy)) {
    say('[stack] already up');
    firstStep(readState(paths)!);
    return;
  }
  if (current) await stopStack(paths);
  const { state } = await startStack(paths, { detached: true });
  firstStep(state);
}

async function start(): Promise<void> {
  if (existsSync(paths.stateFile)) {
    const supervisor = readState(paths)?.supervisor_pid;
    if (supervisor && alive(supervisor)) throw new Error(`the stack already runs under npm start (pid ${supervisor}); Ctrl-C there or npm run stack:down stops it`);
    const current = await stackStatus(paths);
    if (current && Object.entries(current).some(([name, s]) => name !== 'rgw' && s.alive)) {
      throw new Error('a background stack is running (npm run stack:down stops it)');
    }
  }
  const { state, running, relaunch } = await startStack(paths, { detached: false });
  state.supervisor_pid = process.pid;
  writeState(paths, state);
  firstStep(state);
  say('Ctrl-C stops everything. A deployable that exits is started again; each restart is printed here.');
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await supervisor.stop();
    await stopStack(paths);
    process.exit(code);
  };
  const supervisor = supervise({
    running,
    relaunch,
    // The record is what `npm run stack:down`, stack:status and the tests read: always the pid now running.
    recorded: (name, pid) => {
      state.services[name].pid = pid;
      writeState(paths, state);
    },
    say: (line) => say(`[stack] ${line}`),
    gaveUp: ({ name, log, reason }) => {
      if (stopping) return;
      process.stderr.write(`[stack] ${name} failed to come up healthy ${RESTART_POLICY.maxFailedStarts} times in a row (the last time: ${reason}); stopping the stack.\n`
        + `[stack] ${name}'s log is ${relative(process.cwd(), log)}; its last lines:\n${lastLines(log)}\n`);
      void stop(1);
    },
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (!stopping) say('\n[stack] stopping');
      void stop(0);
    });
  }
  // Should this process end any other way (a fault of its own), its deployables do not run on unsupervised.
  process.on('exit', () => {
    if (stopping) return;
    for (const pid of supervisor.pids()) {
      try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
    }
  });
}

async function main(): Promise<void> {
  const cmd = process.argv[2];
  switch (cmd) {
    case 'start':
      return start();
    case 'up':
      return up();
    case 'down': {
      const stopped = await stopStack(paths);
      say(stopped.length ? `[stack] stopped ${stopped.join(', ')}` : '[stack] nothing was running');
      return;
    }
    case 'status': {
      const s = await stackStatus(paths);
      if (!s) {
        say('[stack] not running');
        return;
      }
      for (const [name, v] of Object.entries(s)) say(`${name.padEnd(12)} ${v.pid ? `pid ${v.pid}  ` : ''}${v.alive ? 'alive' : 'dead'}  ${v.healthy ? 'healthy' : 'unhealthy'}`);
      const supervisor = readState(paths)?.supervisor_pid;
      if (supervisor) say(`supervised by npm start, pid ${supervisor} (${alive(supervisor) ? 'alive' : 'dead: nothing restarts a deployable that exits'})`);
      return;
    }
    default:
      say('usage: tsx scripts/stack.ts start|up|down|status');
      process.exitCode = 2;
  }
}

process.chdir(ROOT);
main().catch((err) => {
  process.stderr.write(`[stack] ${(err as Error).message}\n`);
  process.exit(1);
});
