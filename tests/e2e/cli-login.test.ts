// `floe login` end to end (spec: Device authorisation): the real binary asks
// for a code, a signed-in person decides it through the API
// (POST /v1/auth/device/approve with the person's API key), and the binary
// stores the new agent's key, or says it was denied. The browser variant of
// the approval is the device routes' own test.
import { hostname } from 'node:os';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { join as joinOrg, newWarehouse, uniq } from './control-plane-helpers';
import { bearer, gateway, newPrincipal, stack, type NewPrincipal } from './helpers';
import { floe, startFloe, tempConfigDir, type Running } from '../support/floe-cli';

/** The last of the three lines `floe login` prints before it waits: the code is on it, the link above it. */
const LAST_LINE = /\(or go to https?:\/\/\S+ and enter ([A-Z0-9]{4}-[A-Z0-9]{4})\)/;

let admin: string;
let member: NewPrincipal;
let second: string;
const running: Running[] = [];
const dirs: Array<() => void> = [];

beforeAll(async () => {
  const workspace = `clil-${uniq()}`;
  const signup = await gateway().post('/v1/signup').send({ email: `${workspace}@example.com`, workspace, engine: 'duckdb', accept_terms: true });
  expect(signup.status).toBe(201);
  admin = signup.body.api_key;
  const org = (await gateway().get('/v1/orgs').set(bearer(admin))).body.organizations[0];
  second = (await newWarehouse(admin, signup.body.project_id, `wh_${uniq()}`)).name;
  member = await newPrincipal('human');
  await joinOrg(org, member, 'member');
}, 60_000);

afterEach(() => {
  for (const r of running.splice(0)) if (r.child.exitCode === null) r.child.kill();
});
afterAll(() => dirs.forEach((cleanup) => cleanup()));

/** Starts `floe login …` with a fresh config directory and answers the code it printed. */
async function startLogin(args: string[]): Promise<{ login: Running; code: string; dir: string }> {
  const { dir, cleanup } = tempConfigDir();
  dirs.push(cleanup);
  const login = startFloe(['login', '--no-open', '--base-url', stack().base_url, ...args], { FLOE_CONFIG_DIR: dir });
  running.push(login);
  const [, code] = await login.waitFor(LAST_LINE);
  return { login, code, dir };
}

const approve = (key: string, body: Record<string, unknown>) => gateway().post('/v1/auth/device/approve').set(bearer(key)).send(body);

test('approved at read on one catalog: the agent key is stored 0600, sees exactly that catalog, and logout revokes it', async () => {
  const name = `laptop-${uniq()}`;
  const { login, code, dir } = await startLogin(['--name', name, '--catalog', 'lake:read']);
  expect(login.stdout()).toMatch(new RegExp(`^  https?://\\S+${code}\\S*$`, 'm'));

  // What the binary asked for, as the approving person sees it.
  const pending = await gateway().get('/v1/auth/device/pending').query({ user_code: code }).set(bearer(admin));
  expect(pending.status).toBe(200);
  expect(pending.body).toMatchObject({ user_code: code, client: 'cli', hostname: hostname(), client_name: name });
  expect(pending.body.requested).toEqual([expect.objectContaining({ name: 'lake', level: 'read' })]);

  const decided = await approve(admin, { user_code: code, warehouses: [{ name: 'lake', level: 'read' }], deny: false });
  expect(decided.status).toBe(200);
  const done = await login.done;
  expect(done.code).toBe(0);
  expect(done.stdout).toContain(`as agent "${name}"`);
  expect(done.stdout).toContain('Catalogs granted: lake (read)');

  const file = join(dir, 'login.json');
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const stored = JSON.parse(readFileSync(file, 'utf8'));
  expect(stored).toMatchObject({ via: 'device', base_url: stack().base_url, agent_name: name, api_key: expect.stringMatching(/^al_live_/) });

  const catalogs = await floe(['catalogs', '--json'], { FLOE_CONFIG_DIR: dir });
  expect(catalogs.code).toBe(0);
  expect(JSON.parse(catalogs.stdout).map((w: { name: string; my_level: string }) => [w.name, w.my_level])).toEqual([['lake', 'read']]);
  expect(catalogs.stdout).not.toContain(second);

  const out = await floe(['logout'], { FLOE_CONFIG_DIR: dir });
  expect(out.code).toBe(0);
  expect(out.stdout).toContain(`Revoked key ${stored.key_id}`);
  expect((await gateway().get('/v1/orgs').set(bearer(stored.api_key))).status).toBe(401);
  expect((await floe(['whoami'], { FLOE_CONFIG_DIR: dir })).code).toBe(1);
}, 90_000);

test('denied: exit 1 with "login was denied", and nothing stored', async () => {
  const { login, code, dir } = await startLogin([]);
  expect((await approve(admin, { user_code: code, deny: true })).status).toBe(200);
  const done = await login.done;
  expect(done.code).toBe(1);
  expect(done.stderr).toContain('login was denied');
  expect(done.stderr).not.toMatch(/\n\s+at /);
  expect(() => statSync(join(dir, 'login.json'))).toThrow();
}, 90_000);

test('a member approving gives at most read, whatever is asked', async () => {
  const { login, code, dir } = await startLogin(['--level', 'write']);
  const decided = await approve(member.api_key, { user_code: code, warehouses: [{ name: 'lake', level: 'write' }], deny: false });
  expect(decided.status).toBe(200);
  expect(decided.body.connection.warehouses).toEqual([expect.objectContaining({ name: 'lake', level: 'read' })]);
  const done = await login.done;
  expect(done.code).toBe(0);
  expect(done.stdout).toContain('Catalogs granted: lake (read)');
  const rows = JSON.parse((await floe(['catalogs', '--json'], { FLOE_CONFIG_DIR: dir })).stdout);
  expect(rows.map((w: { name: string; my_level: string }) => [w.name, w.my_level])).toEqual([['lake', 'read']]);
  const refused = await floe(['connect', 'lake', '--level', 'write'], { FLOE_CONFIG_DIR: dir });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('(forbidden, HTTP 403)');
}, 90_000);
