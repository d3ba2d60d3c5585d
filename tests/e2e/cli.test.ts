// The `floe` command line, run as the installed binary against the private
// stack, with a person's API key in FLOE_API_KEY (device login has its own
// file, cli-login.test.ts; the first-day journey cli-journey.test.ts): whoami,
// catalogs, connect, the error envelope on the terminal, exit codes, and the
// stored profile's file modes.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { join as joinOrg, newWarehouse, uniq } from './control-plane-helpers';
import { bearer, gateway, newPrincipal, stack, type NewPrincipal } from './helpers';
import { floe, floeTty, screenText, tempConfigDir } from '../support/floe-cli';

let admin: string;
let member: NewPrincipal;
let org: { org_id: string; name: string; handle: string };
let second: string;
const config = tempConfigDir();
afterAll(() => config.cleanup());

beforeAll(async () => {
  const workspace = `cli-${uniq()}`;
  const signup = await gateway().post('/v1/signup').send({ email: `${workspace}@example.com`, workspace, engine: 'duckdb', accept_terms: true });
  expect(signup.status).toBe(201);
  admin = signup.body.api_key;
  const orgs = await gateway().get('/v1/orgs').set(bearer(admin));
  org = orgs.body.organizations[0];
  second = (await newWarehouse(admin, signup.body.project_id, `wh_${uniq()}`)).name;
  member = await newPrincipal('human');
  await joinOrg({ org_id: org.org_id, handle: org.handle, name: org.name }, member, 'member');
  const grant = await gateway().put(`/v1/warehouses/${second}/grants/${member.principal_id}`).set(bearer(admin)).send({ level: 'write' });
  expect(grant.status).toBe(200);
}, 60_000);

/** Env for a run with a key and the stack's address, sharing this file's config directory. */
const withKey = (key: string, more: NodeJS.ProcessEnv = {}) => ({ FLOE_API_KEY: key, FLOE_BASE_URL: stack().base_url, FLOE_CONFIG_DIR: config.dir, ...more });

test('whoami says what Floe says of the key: its organisation and role', async () => {
  const r = await floe(['whoami'], withKey(member.api_key));
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`organisation ${org.name} (${org.handle}, ${org.org_id}), role member`);
  expect(r.stdout).toContain(`Using the key in FLOE_API_KEY (key ${member.key_id})`);
  const json = JSON.parse((await floe(['whoami', '--json'], withKey(admin))).stdout);
  expect(json).toMatchObject({ current: null, profiles: [], live: { base_url: stack().base_url, key_source: 'env', organizations: [{ org_id: org.org_id, role: 'admin' }] } });
});

test('catalogs lists exactly the catalogs the key reaches, with its level on each', async () => {
  const asMember = await floe(['catalogs', '--json'], withKey(member.api_key));
  expect(asMember.code).toBe(0);
  const rows = JSON.parse(asMember.stdout).warehouses as Array<{ name: string; my_level: string; my_via: string }>;
  expect(rows.map((w) => [w.name, w.my_level]).sort()).toEqual([['lake', 'read'], [second, 'write']].sort());
  const api = await gateway().get('/v1/warehouses').set(bearer(member.api_key));
  // The stack's metering may write a sample between the two reads: the storage figure is compared by its shape only.
  const unmetered = (ws: Array<Record<string, unknown>>) => ws.map(({ stored: _stored, ...w }) => ({ ...w, stored: expect.any(Object) }));
  expect(rows).toEqual(unmetered(api.body.warehouses));

  // Piped: tab-separated rows without a header, for cut and awk.
  const piped = await floe(['catalogs'], withKey(member.api_key));
  const tsv = piped.stdout.trim().split('\n').map((l) => l.split('\t'));
  expect(tsv.map((l) => l.slice(0, 3)).sort()).toEqual(rows.map((w) => [w.name, w.my_level, w.my_via]).sort());
  // On a terminal: an aligned table under a header.
  const table = screenText((await floeTty(['catalogs'], withKey(member.api_key))).stdout);
  const lines = table.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
  expect(lines[0].slice(0, 3)).toEqual(['NAME', 'LEVEL', 'VIA']);
  expect(lines.slice(1).map((l) => l.slice(0, 3)).sort()).toEqual(rows.map((w) => [w.name, w.my_level, w.my_via]).sort());

  const asAdmin = JSON.parse((await floe(['catalogs', '--json'], withKey(admin))).stdout).warehouses as Array<{ name: string; my_level: string; my_via: string }>;
  expect(asAdmin.map((w) => [w.name, w.my_level, w.my_via]).sort()).toEqual([['lake', 'write', 'admin'], [second, 'write', 'admin']].sort());
});

test('connect prints the recipe alone on stdout, holding the credential for the level', async () => {
  const r = await floe(['connect', 'lake', '--engine', 'pyiceberg'], withKey(admin));
  expect(r.code).toBe(0);
  const api = (await gateway().get('/v1/connection').query({ warehouse: 'lake', engine: 'pyiceberg' }).set(bearer(admin))).body;
  expect(r.stdout.trim()).toBe(api.recipe.trim());
  expect(r.stdout).toContain(`"credential": "${api.catalog_credential.client_id}:${api.catalog_credential.client_secret}"`);
  expect(api.catalog_credential.client_id).toMatch(/^t-[0-9a-f-]{36}$/);
  expect(r.stderr).toContain('at write level');

  const ro = await floe(['connect', 'lake', '--engine', 'pyiceberg'], withKey(member.api_key));
  expect(ro.stdout).toMatch(/"credential": "t-[0-9a-f-]{36}-ro:/);
  const asked = await floe(['connect', 'lake', '--level', 'read', '--json'], withKey(admin));
  expect(JSON.parse(asked.stdout)).toMatchObject({ warehouse: 'lake', engine: 'duckdb', level: 'read', catalog_credential: { client_id: expect.stringMatching(/-ro$/) } });
});

test('a refusal prints the envelope as one line (code, message, remedy, request id), never a stack, and exits 1', async () => {
  const r = await floe(['connect', 'nope_nothing_here'], withKey(admin));
  expect(r.code).toBe(1);
  const api = (await gateway().get('/v1/connection').query({ warehouse: 'nope_nothing_here' }).set(bearer(admin))).body.error;
  expect(r.stderr.startsWith(`error: warehouse_not_found: ${api.message} (HTTP 404) — ${api.remedy ?? 'see `floe catalogs list`'}`)).toBe(true);
  expect(r.stderr).toMatch(/ \[request \S+\]\n$/);
  expect(r.stderr.split('\n')).toHaveLength(2);
  expect(r.stdout).toBe('');

  const level = await floe(['connect', second, '--level', 'write'], withKey(member.api_key));
  expect(level.code).toBe(0);
  const refused = await floe(['connect', 'lake', '--level', 'write'], withKey(member.api_key));
  expect(refused).toMatchObject({ code: 3 });
  expect(refused.stderr).toMatch(/^error: forbidden: .* \(HTTP 403\) — /);

  const badKey = await floe(['catalogs'], withKey(`al_live_nokey${uniq()}_secret`));
  expect(badKey.code).toBe(3);
  expect(badKey.stderr).toMatch(/\(HTTP 401\) — /);
});

test('where Floe is: --base-url over FLOE_BASE_URL; none is a usage error; an unreachable one is named', async () => {
  const flag = await floe(['--base-url', stack().base_url, 'catalogs'], withKey(admin, { FLOE_BASE_URL: 'http://127.0.0.1:9' }));
  expect(flag.code).toBe(0);
  const gone = await floe(['catalogs'], withKey(admin, { FLOE_BASE_URL: 'http://127.0.0.1:59999/' }));
  expect(gone.code).toBe(4);
  expect(gone.stderr).toContain('could not reach http://127.0.0.1:59999/v1/warehouses');
  const none = await floe(['catalogs'], { FLOE_API_KEY: admin, FLOE_CONFIG_DIR: config.dir });
  expect(none.code).toBe(2);
  expect(none.stderr).toContain('no Floe base URL: pass --base-url <url>, set FLOE_BASE_URL');
  const nobody = await floe(['whoami'], { FLOE_BASE_URL: stack().base_url, FLOE_CONFIG_DIR: config.dir });
  expect(nobody.code).toBe(3);
  expect(nobody.stderr).toContain('not logged in');
});

test('login --with-key keeps the key 0600 in a 0700 directory; later commands use it; logout forgets it and leaves it live', async () => {
  const own = tempConfigDir();
  const dir = join(own.dir, 'floe');
  try {
    const login = await floe(['login', '--with-key', '--base-url', stack().base_url], { FLOE_CONFIG_DIR: dir }, `${member.api_key}\n`);
    expect(login.code).toBe(0);
    expect(login.stderr).toContain(`Key ${member.key_id} kept in ${join(dir, 'credentials.json')}`);
    for (const f of ['config.json', 'credentials.json']) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);

    const who = await floe(['whoami', '--json'], { FLOE_CONFIG_DIR: dir });
    expect(who.code).toBe(0);
    expect(JSON.parse(who.stdout)).toMatchObject({ profiles: [{ current: true, via: 'key', agent_id: member.principal_id, key_id: member.key_id }], live: { key_source: 'login', organizations: [{ role: 'member' }] } });
    expect(JSON.parse((await floe(['catalogs', '--json'], { FLOE_CONFIG_DIR: dir })).stdout).warehouses).toHaveLength(2);

    const out = await floe(['logout'], { FLOE_CONFIG_DIR: dir });
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('stays live');
    expect((await floe(['whoami'], { FLOE_CONFIG_DIR: dir })).code).toBe(3);
    expect((await gateway().get('/v1/orgs').set(bearer(member.api_key))).status).toBe(200);
  } finally {
    own.cleanup();
  }
}, 60_000);
