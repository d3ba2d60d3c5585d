// Where `floe login` keeps the agent key it was given, and nothing else does.
// The file holds a live credential, so the directory is 0700, the file 0600,
// and a write goes to a temporary file in the same directory that is renamed
// over the old one: a crash never leaves half a file or a readable copy.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { CliError } from './errors.js';

export const LOGIN_FILE = 'login.json';

/** What a successful login leaves behind. */
export interface StoredLogin {
  /** `device`: an agent key this CLI was issued (logout revokes it); `key`: a key the person handed over with --with-key (logout leaves it live). */
  via: 'device' | 'key';
  base_url: string;
  api_key: string;
  key_id: string;
  principal_id: string;
  agent_name: string;
  org_id: string | null;
  label: string;
  role?: string;
  warehouses?: Array<{ warehouse_id?: string; name?: string; level?: string }>;
  logged_in_at: string;
}

/** `$FLOE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/floe`, else `~/.config/floe`. Empty values count as unset. */
export function configDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (env.FLOE_CONFIG_DIR) return env.FLOE_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'floe');
  return join(home, '.config', 'floe');
}

export const loginPath = (dir: string) => join(dir, LOGIN_FILE);

/** The stored login, or null when there is none. A file that cannot be read as a login is an error, not "logged out". */
export function readLogin(dir: string): StoredLogin | null {
  let text: string;
  try {
    text = readFileSync(loginPath(dir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliError(`cannot read ${loginPath(dir)}: ${(err as Error).message}`);
  }
  let login: StoredLogin | null = null;
  try {
    login = JSON.parse(text) as StoredLogin;
  } catch {
    // reported below
  }
  if (typeof login?.api_key !== 'string' || typeof login.base_url !== 'string') {
    throw new CliError(`${loginPath(dir)} is not a floe login (${login ? 'no api_key or base_url' : 'not JSON'})`, undefined, 'Remove it, or run `floe login` to replace it.');
  }
  return { ...login, via: login.via === 'key' ? 'key' : 'device' };
}

/** Writes the login atomically with mode 0600 inside a 0700 directory. */
export function writeLogin(dir: string, login: StoredLogin): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const target = loginPath(dir);
  const temp = join(dir, `.${LOGIN_FILE}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    // `wx`: never follows or reuses a file someone else placed at the temporary name.
    writeFileSync(temp, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(temp, 0o600);
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    throw new CliError(`cannot write ${target}: ${(err as Error).message}`);
  }
  return target;
}

/** Removes the stored login; true when there was one. */
export function removeLogin(dir: string): boolean {
  const target = loginPath(dir);
  try {
    rmSync(target);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new CliError(`cannot remove ${target}: ${(err as Error).message}`);
  }
}
