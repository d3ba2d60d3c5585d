// Where a profile's secrets live: the OS keychain (macOS Keychain, Windows
// Credential Manager, the Secret Service on a Linux desktop) when one
// answers, else credentials.json beside config.json. The file is the
// CLI's to guard: it is written 0600 and refused when anyone else could
// read it or it belongs to another user, as ssh refuses a readable key.
// FLOE_KEYCHAIN=off keeps secrets in the file even where a keychain answers;
// on Linux only a session with D-Bus (a desktop) has a keychain to try.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, EXIT_AUTH } from './errors.js';
import { readJsonFile, writePrivateFile } from './profiles.js';

export const CREDENTIALS_FILE = 'credentials.json';
const KEYCHAIN_SERVICE = 'floe';

/** A profile's secrets: its API key and the send keys of the sinks it made. */
export interface Secrets {
  api_key: string;
  send_keys?: Record<string, string>;
}

export interface SecretStore {
  kind: 'keychain' | 'file';
  /** Where, for the person: "the OS keychain" or the file's path. */
  where: string;
  read(profile: string): Secrets | null;
  write(profile: string, secrets: Secrets): void;
  remove(profile: string): void;
}

/** The keychain module, loaded only when asked for (a native addon; absent on some platforms). */
type KeyringEntry = { getPassword(): string | null; setPassword(p: string): void; deletePassword(): boolean };
type Keyring = { Entry: new (service: string, account: string) => KeyringEntry };

async function loadKeyring(): Promise<Keyring | null> {
  try {
    return (await import('@napi-rs/keyring')) as unknown as Keyring;
  } catch {
    return null;
  }
}

export function keychainStore(keyring: Keyring): SecretStore {
  const entry = (profile: string) => new keyring.Entry(KEYCHAIN_SERVICE, profile);
  return {
    kind: 'keychain',
    where: 'the OS keychain',
    read: (profile) => {
      const text = entry(profile).getPassword();
      return text ? (JSON.parse(text) as Secrets) : null;
    },
    write: (profile, secrets) => entry(profile).setPassword(JSON.stringify(secrets)),
    remove: (profile) => { entry(profile).deletePassword(); },
  };
}

/** Refuses a credentials file others could read or that is not this user's. */
export function checkPrivate(path: string, uid: number | null = process.getuid?.() ?? null): void {
  let mode: number;
  let owner: number;
  try {
    ({ mode, uid: owner } = statSync(path));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (process.platform === 'win32') return;
  if (uid !== null && owner !== uid) {
    throw new CliError(`${path} belongs to another user (uid ${owner}), so floe will not use the keys in it`, EXIT_AUTH, `Remove it and run \`floe auth login\` again.`);
  }
  if ((mode & 0o077) !== 0) {
    throw new CliError(`${path} can be read by others (mode ${(mode & 0o777).toString(8)}), so floe will not use the keys in it`, EXIT_AUTH, `Run \`chmod 600 ${path}\`, and revoke the keys in it if someone else may have read them.`);
  }
}

export function fileStore(dir: string): SecretStore {
  const path = join(dir, CREDENTIALS_FILE);
  const all = (): Record<string, Secrets> => {
    checkPrivate(path);
    return readJsonFile<Record<string, Secrets>>(path) ?? {};
  };
  return {
    kind: 'file',
    where: path,
    read: (profile) => all()[profile] ?? null,
    write: (profile, secrets) => { writePrivateFile(dir, CREDENTIALS_FILE, { ...all(), [profile]: secrets }); },
    remove: (profile) => {
      const rest = all();
      if (!(profile in rest)) return;
      delete rest[profile];
      writePrivateFile(dir, CREDENTIALS_FILE, rest);
    },
  };
}

/**
 * Whether this session has a keychain that outlives the process. On Linux
 * that is the Secret Service, reached over the session's D-Bus: without a
 * session bus (SSH, containers, CI) the keyring library falls back to the
 * kernel's per-session keyring, which a later `floe` may not see.
 */
export function keychainPossible(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): boolean {
  if (env.FLOE_KEYCHAIN === 'off' || env.FLOE_KEYCHAIN === '0') return false;
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DBUS_SESSION_BUS_ADDRESS);
}

/**
 * The keychain when one is possible here and answers a write, a read and a
 * delete of a probe entry (a locked or absent keychain fails it), else the
 * file. Asked once per login: a profile records which store holds its secrets.
 */
export async function preferredStore(dir: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): Promise<SecretStore> {
  if (!keychainPossible(platform, env)) return fileStore(dir);
  const keyring = await loadKeyring();
  if (keyring) {
    try {
      const probe = new keyring.Entry(KEYCHAIN_SERVICE, '__floe_probe__');
      probe.setPassword('probe');
      const read = probe.getPassword();
      probe.deletePassword();
      if (read === 'probe') return keychainStore(keyring);
    } catch {
      // no keychain reachable here: the file
    }
  }
  return fileStore(dir);
}

/** The store a profile's secrets were put in. */
export async function storeOf(dir: string, kind: 'keychain' | 'file' | undefined): Promise<SecretStore> {
  if (kind !== 'keychain') return fileStore(dir);
  const keyring = await loadKeyring();
  if (!keyring) throw new CliError('this profile keeps its key in the OS keychain, which cannot be loaded here', EXIT_AUTH, 'Run `floe auth login` again on this machine.');
  return keychainStore(keyring);
}
