import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DATA_KEY_BYTES, loadConfig, type FloeConfig } from '@floe/config';

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

/** A setting's value from the environment when set, otherwise made once and kept (owner-only) in a file of the data folder. */
function keptOnce(paths: StackPaths, fromEnv: string | undefined, file: string, make: () => string): string {
  if (fromEnv) return fromEnv;
  const path = join(paths.dataDir, file);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(paths.dataDir, { recursive: true });
  const value = make();
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return value;
}

/** The bootstrap secret guards internal routes: FLOE_BOOTSTRAP_SECRET, or `bootstrap-secret` in the data folder. */
export function bootstrapSecret(paths: StackPaths, env: NodeJS.ProcessEnv): string {
  return keptOnce(paths, env.FLOE_BOOTSTRAP_SECRET, 'bootstrap-secret', () => randomBytes(32).toString('hex'));
}

/**
 * The data key that seals stored secrets: FLOE_DATA_KEYS, or `data-keys` in
 * the data folder. Kept with the database it sealed: losing it loses every
 * catalog's storage keys and the signing keys.
 */
export function dataKeys(paths: StackPaths, env: NodeJS.ProcessEnv): string {
  return keptOnce(paths, env.FLOE_DATA_KEYS, 'data-keys', () => `local-${randomBytes(3).toString('hex')}:${randomBytes(DATA_KEY_BYTES).toString('base64')}`);
}

/** The environment every deployable of one stack runs with. */
export function stackEnvironment(paths: StackPaths, base: NodeJS.ProcessEnv = process.env): { env: NodeJS.ProcessEnv; config: FloeConfig } {
  const env: NodeJS.ProcessEnv = { ...base, FLOE_BOOTSTRAP_SECRET: bootstrapSecret(paths, base), FLOE_DATA_KEYS: dataKeys(paths, base) };
  const config = loadConfig(env);
  // The gateway's upstream address, derived once here so the services agree on it.
  env.FLOE_IDENTITY_URL = config.upstreams.identity.join(',');
  env.FLOE_MAIL_DIR = join(paths.dataDir, 'mail');
  return { env, config: loadConfig(env) };
}
