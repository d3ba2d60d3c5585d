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

/** The last of the three lines `floe login` prints (on stderr) before it waits: the code is on it, the link above it. */
const LAST_LINE = /\(or go to https?:\/\/\S+ and enter ([A-Z0-9]{4}-[A-Z0-9]{4})\)/;

let admin: string;
let member: NewPrincipal;
let second: string;
let org: { org_id: string; handle: string; name: string };
const running: Running[] = [];
const dirs: Array<() => void> = [];

beforeAll(async () => {
  const workspace = `clil-${uniq()}`;
  const signup = await gateway().post('/v1/signup').send({ email: `${workspace}@example.com`, workspace, engine: 'duckdb', accept_terms: true });
  expect(signup.status).toBe(201);
  admin = signup.body.api_key;
  org = (await gateway().get('/v1/orgs').set(bearer(admin))).body.organizations[0];
  second = (await newWarehouse(admin, signup.body.project_id, `wh_${uniq()}`)).name;
  member = await newPrincipal('human');
  await joinOrg(org, member, 'member');
}, 60_000);

afterEach(() => {
  for (const r of running.splice(0)) if (r.child.exitCode === null) r.child.kill();
});
afterAll(() => dirs.forEach((cleanup) => cleanup()));

/** Starts `floe login …` with a fresh config directory and answers the code it printed. */
async function startLogin(args: string[], into?: string): Promise<{ login: Running; code: string; dir: string }> {
  let dir = into;
  if (!dir) {
    const made = tempConfigDir();
    dirs.push(made.cleanup);
    dir = made.dir;
  }
  const login = startFloe(['login', '--no-open', '--base-url', stack().base_url, ...args], { FLOE_CONFIG_DIR: dir });
  running.push(login);
  const [, code] = await login.waitFor(LAST_LINE);
  return { login, code, dir };
}

const approve = (key: string, body: Record<string, unknown>) => gateway().post('/v1/auth/device/approve').set(bearer(key)).send(body);

test('approved at read on one catalog: the agent key is stored 0600, sees exactly that catalog, and logout revokes it', async () => {
  const name = `laptop-${uniq()}`;
  const { login, code, dir } = await startLogin(['--name', name, '--catalog', 'lake:read']);

  // What the binary asked for, as the approving person sees it.
  const pending = await gateway().get('/v1/auth/device/pending').query({ user_code: code }).set(bearer(admin));
  expect(pending.status).toBe(200);
  expect(pending.body).toMatchObject({ user_code: code, client: 'cli', hostname: hostname(), client_name: name });
  expect(pending.body.requested).toEqual([expect.objectContaining({ name: 'lake', level: 'read' })]);

  const decided = await approve(admin, { user_code: code, warehouses: [{ name: 'lake', level: 'read' }], deny: false });
  expect(decided.status).toBe(200);
  const done = await login.done;
  expect(done.code).toBe(0);
  expect(done.stderr).toMatch(new RegExp(`^  https?://\\S+${code}\\S*$`, 'm'));
  expect(done.stdout).toContain(`as agent "${name}"`);
  expect(done.stdout).toContain('Catalogs granted: lake (read)');

  // The profile in config.json, its key in credentials.json (no keychain on this machine), both 0600.
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
  const profile = config.profiles[config.current];
  expect(profile).toMatchObject({ via: 'device', base_url: stack().base_url, agent_name: name, secret_store: 'file' });
  expect(JSON.stringify(config)).not.toMatch(/al_live_/);
  for (const f of ['config.json', 'credentials.json']) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
  const apiKey = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'))[config.current].api_key as string;
  expect(apiKey).toMatch(/^al_live_/);

  const catalogs = await floe(['catalogs', '--json'], { FLOE_CONFIG_DIR: dir });
  expect(catalogs.code).toBe(0);
  expect(JSON.parse(catalogs.stdout).warehouses.map((w: { name: string; my_level: string }) => [w.name, w.my_level])).toEqual([['lake', 'read']]);
  expect(catalogs.stdout).not.toContain(second);

  // Logout revokes the agent the login made, not only its key: it is gone from the organisation's live agents.
  const out = await floe(['logout'], { FLOE_CONFIG_DIR: dir });
  expect(out.code).toBe(0);
  expect(out.stdout).toContain(`Revoked agent "${name}"`);
  expect((await gateway().get('/v1/orgs').set(bearer(apiKey))).status).toBe(401);
  const agents = (await gateway().get(`/v1/orgs/${org.org_id}/agents`).set(bearer(admin))).body.agents as Array<{ name: string; status: string }>;
  expect(agents.filter((a) => a.name === name).map((a) => a.status)).toEqual([]);
  expect((await floe(['whoami'], { FLOE_CONFIG_DIR: dir })).code).toBe(3);
}, 90_000);

test('denied: exit 1 with "login was denied", and nothing stored', async () => {
  const { login, code, dir } = await startLogin([]);
  expect((await approve(admin, { user_code: code, deny: true })).status).toBe(200);
  const done = await login.done;
  expect(done.code).toBe(1);
  expect(done.stderr).toContain('login was denied');
  expect(done.stderr).not.toMatch(/\n\s+at /);
  expect(() => statSync(join(dir, 'config.json'))).toThrow();
}, 90_000);

test('a member approving gives at most read, whatever is asked', async () => {
  const { login, code, dir } = await startLogin(['--level', 'write']);
  const decided = await approve(member.api_key, { user_code: code, warehouses: [{ name: 'lake', level: 'write' }], deny: false });
  expect(decided.status).toBe(200);
  expect(decided.body.connection.warehouses).toEqual([expect.objectContaining({ name: 'lake', level: 'read' })]);
  const done = await login.done;
  expect(done.code).toBe(0);
  expect(done.stdout).toContain('Catalogs granted: lake (read)');
  const rows = JSON.parse((await floe(['catalogs', '--json'], { FLOE_CONFIG_DIR: dir })).stdout).warehouses;
  expect(rows.map((w: { name: string; my_level: string }) => [w.name, w.my_level])).toEqual([['lake', 'read']]);
  const refused = await floe(['connect', 'lake', '--level', 'write'], { FLOE_CONFIG_DIR: dir });
  expect(refused.code).toBe(3);
  expect(refused.stderr).toMatch(/^error: forbidden: .* \(HTTP 403\) — /m);
}, 90_000);

test('a second login into the same profile revokes the agent of the first', async () => {
  const first = await startLogin(['--name', `box-${uniq()}`]);
  expect((await approve(admin, { user_code: first.code, deny: false })).status).toBe(200);
  expect((await first.login.done).code).toBe(0);
  const firstKey = (await floe(['auth', 'token'], { FLOE_CONFIG_DIR: first.dir })).stdout.trim();
  expect((await gateway().get('/v1/orgs').set(bearer(firstKey))).status).toBe(200);

  const second = await startLogin(['--name', `box-${uniq()}`], first.dir);
  expect((await approve(admin, { user_code: second.code, deny: false })).status).toBe(200);
  const done = await second.login.done;
  expect(done.code).toBe(0);
  expect(done.stderr).toContain('Revoked the agent');
  expect((await gateway().get('/v1/orgs').set(bearer(firstKey))).status).toBe(401);
  const status = JSON.parse((await floe(['auth', 'status', '--json'], { FLOE_CONFIG_DIR: first.dir })).stdout);
  expect(status.profiles).toHaveLength(1);
  const secondKey = (await floe(['auth', 'token'], { FLOE_CONFIG_DIR: first.dir })).stdout.trim();
  expect(secondKey).not.toBe(firstKey);
  expect((await gateway().get('/v1/orgs').set(bearer(secondKey))).status).toBe(200);
}, 90_000);
