import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configDir, loginPath, readLogin, removeLogin, writeLogin, type StoredLogin } from './config-store';
import { CliError } from './errors';

const login: StoredLogin = {
  via: 'device', base_url: 'http://127.0.0.1:8080', api_key: 'al_live_k1_secret', key_id: 'k1', principal_id: 'p1',
  agent_name: 'laptop', org_id: 'org_1', label: 'laptop', logged_in_at: '2026-01-01T00:00:00.000Z',
};

describe('configDir', () => {
  test('FLOE_CONFIG_DIR, then XDG_CONFIG_HOME/floe, then ~/.config/floe; empty values count as unset', () => {
    expect(configDir({ FLOE_CONFIG_DIR: '/a', XDG_CONFIG_HOME: '/x' }, '/home/me')).toBe('/a');
    expect(configDir({ XDG_CONFIG_HOME: '/x' }, '/home/me')).toBe('/x/floe');
    expect(configDir({ FLOE_CONFIG_DIR: '', XDG_CONFIG_HOME: '' }, '/home/me')).toBe('/home/me/.config/floe');
  });
});

describe('the stored login', () => {
  let root: string;
  beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'floe-cli-')); });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test('is written 0600 in a 0700 directory, with no temporary file left, and read back', () => {
    const dir = join(root, 'nested', 'floe');
    expect(readLogin(dir)).toBeNull();
    expect(writeLogin(dir, login)).toBe(loginPath(dir));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(loginPath(dir)).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['login.json']);
    expect(readLogin(dir)).toEqual(login);
  });

  test('a rewrite replaces the file and tightens a directory that was too open', () => {
    writeLogin(root, login);
    writeLogin(root, { ...login, key_id: 'k2' });
    expect(readLogin(root)?.key_id).toBe('k2');
    expect(statSync(root).mode & 0o777).toBe(0o700);
  });

  test('a file that is not a login is an error, not "logged out"', () => {
    writeFileSync(loginPath(root), '{"hello":1}');
    expect(() => readLogin(root)).toThrow(CliError);
    writeFileSync(loginPath(root), 'not json');
    expect(() => readLogin(root)).toThrow(/is not a floe login/);
  });

  test('remove says whether there was one', () => {
    writeLogin(root, login);
    expect(removeLogin(root)).toBe(true);
    expect(removeLogin(root)).toBe(false);
    expect(readLogin(root)).toBeNull();
  });
});
