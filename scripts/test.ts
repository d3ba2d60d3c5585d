// `npm test`: typecheck, then every jest project (unit + integration against
// the real Postgres and Redis, and end-to-end against a stack the e2e project
// starts and stops itself). Extra arguments go to jest.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '@floe/config';
import { ensurePostgres, ensureRedis } from './lib/infra';
import { ROOT } from './lib/stack-env';

const say = (line: string) => process.stdout.write(`[test] ${line}\n`);

function run(label: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
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

run('typecheck', process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noEmit']);
run('jest', process.execPath, [
  '--experimental-vm-modules', '--no-warnings=ExperimentalWarning',
  join(ROOT, 'node_modules/jest/bin/jest.js'), '--ci', ...process.argv.slice(2),
], { ...process.env, FLOE_LOG_LEVEL: process.env.FLOE_LOG_LEVEL ?? 'warn' });
