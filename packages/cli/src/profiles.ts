// Where `floe` keeps its logins, and nothing else does. A login is a
// profile: one Floe (base URL) and one organisation, named
// `<org handle>@<host>` unless the person names it. config.json holds the
// profiles and which one is current, never a secret. The secrets (the API
// key, and the send keys of sinks this profile made) live in the OS keychain
// where one answers (secret-store.ts), else in credentials.json. Both files
// are 0600 inside a 0700 directory, written to a temporary file that is
// renamed over the old one, so a crash never leaves half a file.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CliError } from './errors.js';

export const CONFIG_FILE = 'config.json';
/** The single login of floe 0.1, read once and moved into a profile. */
const LEGACY_LOGIN_FILE = 'login.json';

/** What a login leaves behind, without its secret. */
export interface Profile {
  name: string;
  /** `device`: an agent this CLI was issued (logout revokes it); `key`: a key the person handed over with --with-key (logout leaves it live). */
  via: 'device' | 'key';
  base_url: string;
  key_id: string;
  principal_id: string;
  agent_name: string;
  org_id: string | null;
  org_handle?: string | null;
  label: string;
  role?: string;
  warehouses?: Array<{ warehouse_id?: string; name?: string; level?: string }>;
  logged_in_at: string;
  /** Where its secrets are: the OS keychain or credentials.json. */
  secret_store?: 'keychain' | 'file';
}

/** A profile with its key, as a command uses it. */
export interface StoredLogin extends Profile {
  api_key: string;
}

export interface Config {
  current: string | null;
  profiles: Record<string, Profile>;
}

/** `$FLOE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/floe`, else `~/.config/floe`. Empty values count as unset. */
export function configDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (env.FLOE_CONFIG_DIR) return env.FLOE_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'floe');
  return join(home, '.config', 'floe');
}

export const configPath = (dir: string) => join(dir, CONFIG_FILE);

/** `<org handle>@<host[:port]>`, or `<key id>@<host>` for a key outside any organisation. */
export function profileNameFor(baseUrl: string, orgHandle: string | null | undefined, keyId: string): string {
  return `${orgHandle ?? keyId}@${new URL(baseUrl).host}`;
}

/** Reads a JSON file of ours: null when absent, an error naming the file when it is not JSON. */
export function readJsonFile<T>(path: string): T | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new CliError(`${path} is not JSON`, undefined, 'Remove it, or run `floe auth login` to write it again.');
  }
}

/** Writes atomically with mode 0600 inside a 0700 directory. */
export function writePrivateFile(dir: string, name: string, value: unknown): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const target = join(dir, name);
  const temp = join(dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    // `wx`: never follows or reuses a file someone else placed at the temporary name.
    writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(temp, 0o600);
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    throw new CliError(`cannot write ${target}: ${(err as Error).message}`);
  }
  return target;
}

export function readConfig(dir: string): Config {
  const found = readJsonFile<Partial<Config>>(configPath(dir));
  if (found) {
    if (typeof found.profiles !== 'object' || found.profiles === null) throw new CliError(`${configPath(dir)} is not a floe config (no profiles)`, undefined, 'Remove it, or run `floe auth login` to write it again.');
    return { current: typeof found.current === 'string' ? found.current : null, profiles: found.profiles };
  }
  return { current: null, profiles: {} };
}

export function writeConfig(dir: string, config: Config): string {
  return writePrivateFile(dir, CONFIG_FILE, config);
}

/** floe 0.1's login.json: its profile and key (to be moved by the caller), or null. */
export function legacyLogin(dir: string): StoredLogin | null {
  const old = readJsonFile<Partial<StoredLogin>>(join(dir, LEGACY_LOGIN_FILE));
  if (!old || typeof old.api_key !== 'string' || typeof old.base_url !== 'string') return null;
  const keyId = old.key_id ?? 'key';
  return {
    via: old.via === 'key' ? 'key' : 'device', base_url: old.base_url, api_key: old.api_key, key_id: keyId, principal_id: old.principal_id ?? '',
    agent_name: old.agent_name ?? keyId, org_id: old.org_id ?? null, label: old.label ?? keyId, role: old.role, warehouses: old.warehouses,
    logged_in_at: old.logged_in_at ?? new Date().toISOString(), name: profileNameFor(old.base_url, null, keyId),
  };
}

export function removeLegacyLogin(dir: string): void {
  rmSync(join(dir, LEGACY_LOGIN_FILE), { force: true });
}
