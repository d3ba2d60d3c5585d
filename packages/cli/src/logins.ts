// The logins `floe` holds: profiles (profiles.ts) with their secrets
// (secret-store.ts). Which profile a command uses: `--profile`, else
// FLOE_PROFILE, else the current one (the last login or `auth switch`).
import { CliError, EXIT_AUTH } from './errors.js';
import type { Io } from './io.js';
import { configPath, legacyLogin, readConfig, removeLegacyLogin, writeConfig, type Config, type Profile, type StoredLogin } from './profiles.js';
import { preferredStore, storeOf, type Secrets } from './secret-store.js';

/** The config, with floe 0.1's single login moved into a profile the first time it is read. */
export async function loadConfig(io: Io): Promise<Config> {
  const config = readConfig(io.configDir);
  const old = legacyLogin(io.configDir);
  if (!old) return config;
  if (!config.profiles[old.name]) {
    await saveLogin(io, old, config.current === null);
    removeLegacyLogin(io.configDir);
    return readConfig(io.configDir);
  }
  removeLegacyLogin(io.configDir);
  return config;
}

/** The profile name a command asked for, or the current one; null when there is none. */
export function chosenProfile(io: Io, config: Config, flag: string | undefined): string | null {
  const name = flag ?? io.env.FLOE_PROFILE ?? config.current;
  if (!name) return null;
  if (!config.profiles[name]) {
    const known = Object.keys(config.profiles);
    throw new CliError(`no profile named "${name}"`, EXIT_AUTH, known.length ? `Profiles here: ${known.join(', ')}. Run \`floe auth status\` to see them.` : 'Run `floe auth login` first.');
  }
  return name;
}

/** The chosen profile with its key, or null when logged in nowhere. */
export async function loadLogin(io: Io, flag?: string): Promise<StoredLogin | null> {
  const config = await loadConfig(io);
  const name = chosenProfile(io, config, flag);
  if (!name) return null;
  const profile = config.profiles[name];
  const secrets = (await storeOf(io.configDir, profile.secret_store)).read(name);
  if (!secrets) throw new CliError(`the key of profile "${name}" is missing from ${profile.secret_store === 'keychain' ? 'the OS keychain' : 'credentials.json'}`, EXIT_AUTH, `Run \`floe auth login\` again, or \`floe auth logout --profile ${name} --force\` to forget it.`);
  return { ...profile, api_key: secrets.api_key };
}

/** Stores a login as its profile (replacing one of the same name) and, unless told otherwise, makes it current. */
export async function saveLogin(io: Io, login: StoredLogin, makeCurrent = true): Promise<{ path: string; where: string }> {
  const { api_key, ...profile } = login;
  const store = await preferredStore(io.configDir, io.env);
  const config = readConfig(io.configDir);
  const before = config.profiles[login.name];
  // A new key for the profile starts without the old one's send keys only when it is another principal's.
  const kept = before && before.principal_id === login.principal_id ? (await storeOf(io.configDir, before.secret_store)).read(login.name)?.send_keys : undefined;
  if (before && before.secret_store !== store.kind) (await storeOf(io.configDir, before.secret_store)).remove(login.name);
  store.write(login.name, { api_key, ...(kept ? { send_keys: kept } : {}) });
  const path = writeConfig(io.configDir, {
    current: makeCurrent ? login.name : config.current,
    profiles: { ...config.profiles, [login.name]: { ...profile, secret_store: store.kind } },
  });
  return { path, where: store.where };
}

/** Removes a profile and its secrets; the current profile moves to another one, if any. */
export async function forgetLogin(io: Io, name: string): Promise<void> {
  const config = readConfig(io.configDir);
  const profile = config.profiles[name];
  if (!profile) return;
  (await storeOf(io.configDir, profile.secret_store)).remove(name);
  const { [name]: _gone, ...rest } = config.profiles;
  writeConfig(io.configDir, { current: config.current === name ? Object.keys(rest)[0] ?? null : config.current, profiles: rest });
}

export async function switchProfile(io: Io, name: string): Promise<Profile> {
  const config = await loadConfig(io);
  chosenProfile(io, config, name);
  writeConfig(io.configDir, { ...config, current: name });
  return config.profiles[name];
}

async function secretsOf(io: Io, name: string): Promise<{ secrets: Secrets; write: (s: Secrets) => void }> {
  const config = readConfig(io.configDir);
  const profile = config.profiles[name];
  if (!profile) throw new CliError(`no profile named "${name}"`, EXIT_AUTH);
  const store = await storeOf(io.configDir, profile.secret_store);
  const secrets = store.read(name);
  if (!secrets) throw new CliError(`the key of profile "${name}" is missing`, EXIT_AUTH, 'Run `floe auth login` again.');
  return { secrets, write: (s) => store.write(name, s) };
}

/** Keeps a sink's send key (shown once, at creation) with the profile that made the sink. */
export async function rememberSendKey(io: Io, profile: string, sinkId: string, sendKey: string): Promise<void> {
  const { secrets, write } = await secretsOf(io, profile);
  write({ ...secrets, send_keys: { ...secrets.send_keys, [sinkId]: sendKey } });
}

/** Forgets a deleted sink's send key (it is refused from now on); true when the profile held one. */
export async function forgetSendKey(io: Io, profile: string, sinkId: string): Promise<boolean> {
  const { secrets, write } = await secretsOf(io, profile);
  if (!secrets.send_keys?.[sinkId]) return false;
  const { [sinkId]: _gone, ...rest } = secrets.send_keys;
  write({ ...secrets, send_keys: rest });
  return true;
}

export async function sendKeyOf(io: Io, profile: string, sinkId: string): Promise<string | null> {
  return (await secretsOf(io, profile)).secrets.send_keys?.[sinkId] ?? null;
}

export { configPath };
