// A throwaway stack for tests and benchmarks: its own database, Redis key
// prefix, data folder and free ports, so it never collides with a developer's
// `npm start` or another run; removed without trace by stopPrivateStack.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { Redis } from 'ioredis';
import { dropDatabase } from '@floe/db';
import { freePort } from './infra';
import { readState, startStack, stopStack, type StackState } from './stack';
import { stackPaths } from './stack-env';

export async function startPrivateStack(label: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<{ state: StackState; stateFile: string }> {
  const id = randomBytes(4).toString('hex');
  const paths = stackPaths(`.data/${label}-${id}`);
  const baseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    FLOE_ENV: 'test',
    DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/floe_${label}_${id}`,
    FLOE_REDIS_PREFIX: `floe:${label}:${id}:`,
    FLOE_BOOTSTRAP_SECRET: randomBytes(24).toString('hex'),
    FLOE_GATEWAY_PORT: String(await freePort()),
    FLOE_IDENTITY_PORT: String(await freePort()),
    FLOE_CONTROL_PLANE_PORT: String(await freePort()),
    FLOE_INGEST_PORT: String(await freePort()),
    FLOE_CATALOG_PORT: String(await freePort()),
    FLOE_TEARDOWN_HEALTH_PORT: String(await freePort()),
    FLOE_ROLLER_HEALTH_PORT: String(await freePort()),
    ...extraEnv,
  };
  for (const k of ['FLOE_BASE_URL', 'FLOE_IDENTITY_URL', 'FLOE_CONTROL_PLANE_URL', 'FLOE_CATALOG_URL', 'FLOE_S3_URL', 'FLOE_INGEST_URL', 'FLOE_INGEST_GATEWAY_URL']) {
    if (!(k in extraEnv)) delete baseEnv[k];
  }
  const { state } = await startStack(paths, { detached: true, baseEnv });
  return { state, stateFile: paths.stateFile };
}

/** The settings a further process needs to work as part of a running private stack (a test's or bench's own roller). */
export function joinPrivateStackEnv(state: StackState): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: state.database_url,
    FLOE_REDIS_PREFIX: state.redis_prefix,
    FLOE_BOOTSTRAP_SECRET: state.bootstrap_secret,
    FLOE_CONTROL_PLANE_URL: state.services['control-plane'].url,
    FLOE_IDENTITY_URL: state.services.identity.url,
    FLOE_CATALOG_INTERNAL_URL: state.catalog_url,
    FLOE_S3_URL: state.s3_url,
  };
}

export async function stopPrivateStack(stateFile: string, keepFiles = false): Promise<void> {
  const paths = stackPaths(dirname(stateFile));
  const state = readState(paths);
  await stopStack(paths);
  if (state) {
    await dropDatabase(state.database_url);
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${state.redis_prefix}*`, 'COUNT', 500);
        if (keys.length) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      await redis.quit();
    }
  }
  if (!keepFiles) rmSync(paths.dataDir, { recursive: true, force: true });
}
