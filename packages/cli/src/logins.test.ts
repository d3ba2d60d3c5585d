import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_AUTH } from './errors';
import type { Io } from './io';
import { forgetLogin, forgetSendKey, loadConfig, loadLogin, rememberSendKey, saveLogin, sendKeyOf, switchProfile } from './logins';
import { configDir, profileNameFor, type StoredLogin } from './profiles';
import { keychainPossible, keychainStore } from './secret-store';

const login = (over: Partial<StoredLogin> = {}): StoredLogin => ({
  name: 'acme@127.0.0.1:8080', via: 'device', base_url: 'http://127.0.0.1:8080', api_key: 'al_live_k1_secret', key_id: 'k1', principal_id: 'p1',
  agent_name: 'laptop', org_id: 'org_1', org_handle: 'acme', label: 'laptop', logged_in_at: '2026-01-01T00:00:00.000Z', ...over,
});

let dir: string;
let io: Io;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'floe-cli-')), 'nested', 'floe');
  io = { env: { FLOE_KEYCHAIN: 'off' }, out: () => {}, err: () => {}, configDir: dir, readInput: async () => '' };
});
afterEach(() => rmSync(join(dir, '..', '..'), { recursive: true, force: true }));

test('configDir: FLOE_CONFIG_DIR, then XDG_CONFIG_HOME/floe, then ~/.config/floe; empty values count as unset', () => {
  expect(configDir({ FLOE_CONFIG_DIR: '/a', XDG_CONFIG_HOME: '/x' }, '/home/me')).toBe('/a');
  expect(configDir({ XDG_CONFIG_HOME: '/x' }, '/home/me')).toBe('/x/floe');
  expect(configDir({ FLOE_CONFIG_DIR: '', XDG_CONFIG_HOME: '' }, '/home/me')).toBe('/home/me/.config/floe');
  expect(profileNameFor('https://floe.example.com/', 'acme', 'k1')).toBe('acme@floe.example.com');
  expect(profileNameFor('http://127.0.0.1:8080', null, 'k1')).toBe('k1@127.0.0.1:8080');
});

test('a login is a profile in config.json (no secret) and its key in credentials.json, both 0600 in a 0700 directory', async () => {
  expect(await loadLogin(io)).toBeNull();
  const saved = await saveLogin(io, login());
  expect(saved.where).toBe(join(dir, 'credentials.json'));
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  for (const f of ['config.json', 'credentials.json']) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
  expect(readFileSync(join(dir, 'config.json'), 'utf8')).not.toContain('al_live_k1_secret');
  expect(JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'))).toEqual({ 'acme@127.0.0.1:8080': { api_key: 'al_live_k1_secret' } });
  expect(await loadLogin(io)).toEqual({ ...login(), secret_store: 'file' });
});

test('profiles: the last login is current; --profile, FLOE_PROFILE and switch choose; an unknown name is exit 3', async () => {
  await saveLogin(io, login());
  await saveLogin(io, login({ name: 'beta@floe.example.com', base_url: 'https://floe.example.com', api_key: 'al_live_k2_s', key_id: 'k2', principal_id: 'p2' }));
  expect((await loadLogin(io))?.key_id).toBe('k2');
  expect((await loadLogin(io, 'acme@127.0.0.1:8080'))?.key_id).toBe('k1');
  expect((await loadLogin({ ...io, env: { ...io.env, FLOE_PROFILE: 'acme@127.0.0.1:8080' } }))?.key_id).toBe('k1');
  await switchProfile(io, 'acme@127.0.0.1:8080');
  expect((await loadConfig(io)).current).toBe('acme@127.0.0.1:8080');
  await expect(loadLogin(io, 'nope')).rejects.toMatchObject({ exitCode: EXIT_AUTH, hint: expect.stringMatching(/acme@127.0.0.1:8080, beta@floe.example.com/) });
  await forgetLogin(io, 'acme@127.0.0.1:8080');
  expect((await loadConfig(io)).current).toBe('beta@floe.example.com');
  expect(Object.keys(JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')))).toEqual(['beta@floe.example.com']);
});

test('a credentials file others can read is refused (exit 3) with the chmod to run', async () => {
  await saveLogin(io, login());
  chmodSync(join(dir, 'credentials.json'), 0o644);
  await expect(loadLogin(io)).rejects.toMatchObject({ exitCode: EXIT_AUTH, message: expect.stringMatching(/can be read by others \(mode 644\)/), hint: expect.stringMatching(/chmod 600/) });
});

test('send keys are kept with the profile that made the sink, and survive a new login of the same agent', async () => {
  await saveLogin(io, login());
  await rememberSendKey(io, 'acme@127.0.0.1:8080', 'sink_1', 'sk_secret');
  expect(await sendKeyOf(io, 'acme@127.0.0.1:8080', 'sink_1')).toBe('sk_secret');
  expect(await sendKeyOf(io, 'acme@127.0.0.1:8080', 'sink_2')).toBeNull();
  await saveLogin(io, login({ api_key: 'al_live_k3_s', key_id: 'k3' }));
  expect(await sendKeyOf(io, 'acme@127.0.0.1:8080', 'sink_1')).toBe('sk_secret');
  expect(await forgetSendKey(io, 'acme@127.0.0.1:8080', 'sink_1')).toBe(true);
  expect(await sendKeyOf(io, 'acme@127.0.0.1:8080', 'sink_1')).toBeNull();
  expect(await forgetSendKey(io, 'acme@127.0.0.1:8080', 'sink_1')).toBe(false);
  await rememberSendKey(io, 'acme@127.0.0.1:8080', 'sink_1', 'sk_secret');
  await saveLogin(io, login({ api_key: 'al_live_k4_s', key_id: 'k4', principal_id: 'someone-else' }));
  expect(await sendKeyOf(io, 'acme@127.0.0.1:8080', 'sink_1')).toBeNull();
});

test('floe 0.1\'s login.json becomes a profile the first time it is read', async () => {
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir, { recursive: true });
  const { name: _n, org_handle: _h, ...old } = login();
  writeFileSync(join(dir, 'login.json'), JSON.stringify(old), { mode: 0o600 });
  const moved = await loadLogin(io);
  expect(moved).toMatchObject({ name: 'k1@127.0.0.1:8080', api_key: 'al_live_k1_secret', principal_id: 'p1', via: 'device' });
  expect(() => statSync(join(dir, 'login.json'))).toThrow();
});

test('the keychain store keeps each profile\'s secrets under service "floe"', () => {
  const held = new Map<string, string>();
  class Entry {
    constructor(private readonly service: string, private readonly account: string) {}
    getPassword() { return held.get(`${this.service}/${this.account}`) ?? null; }
    setPassword(p: string) { held.set(`${this.service}/${this.account}`, p); }
    deletePassword() { return held.delete(`${this.service}/${this.account}`); }
  }
  const store = keychainStore({ Entry });
  store.write('acme@h', { api_key: 'k' });
  expect(held.get('floe/acme@h')).toBe('{"api_key":"k"}');
  expect(store.read('acme@h')).toEqual({ api_key: 'k' });
  store.remove('acme@h');
  expect(store.read('acme@h')).toBeNull();
});

test('a keychain is tried on macOS and Windows, and on Linux only with a session bus; FLOE_KEYCHAIN=off never', () => {
  expect(keychainPossible('darwin', {})).toBe(true);
  expect(keychainPossible('win32', {})).toBe(true);
  expect(keychainPossible('linux', {})).toBe(false);
  expect(keychainPossible('linux', { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' })).toBe(true);
  expect(keychainPossible('darwin', { FLOE_KEYCHAIN: 'off' })).toBe(false);
});
