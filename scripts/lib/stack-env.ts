import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig, type FloeConfig } from '@floe/config';

export const ROOT = resolve(import.meta.dirname, '..', '..');

export interface StackPaths {
  dataDir: string;
  logDir: string;
  stateFile: string;
}

export function stackPaths(dataDir = process.env.FLOE_DATA_DIR ?? join(ROOT, '.data')): StackPaths {
  const abs = resolve(ROOT, dataDir);
  return { dataDir: abs, logDir: join(abs, 'logs'), stateFile: join(abs, 'stack.json') };
}

/**
 * The bootstrap secret guards internal routes: FLOE_BOOTSTRAP_SECRET when set,
 * otherwise one generated once and kept (owner-only) under the data folder.
 */
export function bootstrapSecret(paths: StackPaths, env: NodeJS.ProcessEnv): string {
  if (env.FLOE_BOOTSTRAP_SECRET) return env.FLOE_BOOTSTRAP_SECRET;
  const file = join(paths.dataDir, 'bootstrap-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(paths.dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The environment every deployable of one stack runs with. */
export function stackEnvironment(paths: StackPaths, base: NodeJS.ProcessEnv = process.env): { env: NodeJS.ProcessEnv; config: FloeConfig } {
  const env: NodeJS.ProcessEnv = { ...base, FLOE_BOOTSTRAP_SECRET: bootstrapSecret(paths, base) };
  const config = loadConfig(env);
  // The gateway's upstream address, derived once here so the services agree on it.
  env.FLOE_IDENTITY_URL = config.services.identity;
  return { env, config: loadConfig(env) };
}
