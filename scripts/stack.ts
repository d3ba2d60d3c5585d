// npm start            → start (foreground; Ctrl-C stops everything it started)
// npm run stack:up     → up (background; pids and logs under .data/, state in .data/stack.json)
// npm run stack:down   → down
// npm run stack:status → status
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { lastLines, stopPid } from './lib/processes';
import { readState, stackStatus, startStack, stopStack, type StackState } from './lib/stack';
import { ROOT, stackPaths } from './lib/stack-env';

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
    const current = await stackStatus(paths);
    if (current && Object.entries(current).some(([name, s]) => name !== 'rgw' && s.alive)) {
      throw new Error('a background stack is running (npm run stack:down stops it)');
    }
  }
  const { state, running } = await startStack(paths, { detached: false });
  firstStep(state);
  say('Ctrl-C stops everything.');
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    say('\n[stack] stopping');
    await Promise.all(running.map((r) => stopPid(r.pid)));
    await stopStack(paths);
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  for (const r of running) {
    r.child?.on('exit', (code, signal) => {
      if (stopping) return;
      say(`[stack] ${r.name} exited (${code ?? signal}); last lines of its log:\n${lastLines(r.log)}`);
      void stop();
    });
  }
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
