// A newcomer's first day with `floe`, as the installed binary on a
// pseudo-terminal where a person would see something else than a script
// (progress bars, tables, a typed confirmation), and with --json where a
// script reads the answer: log in as an admin agent (approved in Chromium),
// make a catalog and a table, send a 100,000-row NDJSON file through a sink
// (again: nothing sent twice), see the misfits among the rejects, read usage,
// put and get a 50 MB blob, delete and restore the catalog, log out (the
// agent is revoked). Then the refusals: each reaches the person as one line
// with Floe's code and a remedy, and a non-zero exit code that says which kind.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { uniq } from './control-plane-helpers';
import { bearer, gateway, sql, stack } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { floe, floeTty, screenText, startFloe, tempConfigDir } from '../support/floe-cli';
import { personWithPassword, signInOnTheWay, type PersonWithSession } from '../support/people';

const browser = chromiumForFile();
const shot = screenshots('cli-journey');
const PASSWORD = 'a first day passphrase 7';
const ADDRESS = /(https?:\/\/\S+user_code=([A-Z0-9]{4}-[A-Z0-9]{4}))/;
const ROWS = 100_000;
const MISFITS = 3;

const config = tempConfigDir();
const env = { FLOE_CONFIG_DIR: config.dir };
let person: PersonWithSession;
const catalog = `day_${uniq()}`;
afterAll(() => config.cleanup());

beforeAll(async () => {
  person = await personWithPassword('day', PASSWORD);
}, 60_000);

const sha256 = (path: string) => new Promise<string>((resolve, reject) => {
  const h = createHash('sha256');
  createReadStream(path).on('data', (b) => h.update(b)).on('end', () => resolve(h.digest('hex'))).on('error', reject);
});

/** Runs floe with --json and answers the parsed stdout, failing with its stderr when it did not exit 0. */
async function json<T = Record<string, unknown>>(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<T> {
  const r = await floe([...args, '--json'], { ...env, ...extra });
  if (r.code !== 0) throw new Error(`floe ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

let agentKey = '';

test('the first day: login as an admin agent, a catalog, a table, 100,000 rows through a sink, a 50 MB blob, delete and restore, logout', async () => {
  // 1. login --role admin on a terminal; the person approves in the browser, signing in on the way.
  const login = startFloe(['auth', 'login', '--role', 'admin', '--name', 'first-day', '--no-open', '--base-url', stack().base_url], env, undefined, { tty: true });
  const [, address] = await login.waitFor(ADDRESS);
  const page = await browser().newPage();
  await signInOnTheWay(page, address, person);
  await page.getByText('as the agent “first-day”').waitFor();
  await shot(page, '1-approve-admin');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('status').filter({ hasText: 'Approved' }).waitFor();
  await page.close();
  login.child.stdin!.end();
  const loggedIn = await login.done;
  expect(loggedIn.code).toBe(0);
  expect(screenText(loggedIn.stdout)).toMatch(/Logged in to \S+ as agent "first-day" of day-\S+ \(role admin\); profile day-\S+@\S+ is current\./);
  const status = await json<{ current: string; profiles: Array<{ name: string; role: string; secret_store: string }>; live: { organizations: Array<{ role: string }> } }>(['auth', 'status']);
  expect(status.profiles).toEqual([expect.objectContaining({ name: status.current, role: 'admin', secret_store: 'file' })]);
  expect(status.live.organizations).toEqual([expect.objectContaining({ role: 'admin' })]);
  agentKey = (await floe(['auth', 'token'], env)).stdout.trim();
  expect(agentKey).toMatch(/^al_live_/);

  // 2. a catalog and a table
  const made = await json<{ warehouse_id: string; name: string; status: string }>(['catalogs', 'create', catalog]);
  expect(made).toMatchObject({ name: catalog, status: 'ready' });
  const signing = await json<{ storage_access: string; updated: string[] }>(['catalogs', 'set', catalog, '--storage-access', 'signing_only']);
  expect(signing).toMatchObject({ storage_access: 'signing_only', updated: ['storage_access'] });
  expect(await json(['catalogs', 'set', catalog, '--storage-access', 'vended'])).toMatchObject({ storage_access: 'vended', updated: ['storage_access'] });
  const table = await json<{ table: string; format_version: number }>(['tables', 'create', catalog, 'demo.events', '--columns', 'id:long!,msg:string']);
  expect(table).toMatchObject({ table: 'demo.events' });
  const listed = screenText((await floeTty(['tables', 'list', catalog], env)).stdout);
  expect(listed).toMatch(/^TABLE\s*\n\s*demo\.events\s*$/m);

  // 3. a sink, and 100,000 rows (three misfits) sent with a progress bar; the second run sends nothing
  const sink = await json<{ sink_id: string; name: string }>(['sinks', 'create', catalog, 'demo.events', '--name', 'events_in', '--inactivity-seconds', '5']);
  const file = join(config.dir, 'events.ndjson');
  const lines: string[] = [];
  for (let i = 0; i < ROWS; i++) lines.push(JSON.stringify(i % 33_333 === 7 ? { id: `not-a-number-${i}`, msg: 'misfit' } : { id: i, msg: `event ${i}` }));
  writeFileSync(file, `${lines.join('\n')}\n`);
  expect(lines.filter((l) => l.includes('misfit'))).toHaveLength(MISFITS);
  const sent = await floeTty(['sinks', 'send', sink.sink_id, file], env);
  expect(sent.code).toBe(0);
  const screen = screenText(sent.stdout);
  expect(screen).toMatch(/\[#{24}\] 100%\s+100,000\/100,000 rows/);
  const again = await json<{ batches: number; sent: number; duplicates: number; accepted: number }>(['sinks', 'send', 'events_in', file]);
  expect(again.sent).toBe(0);
  expect(again.duplicates).toBe(again.batches);
  expect(again.batches).toBeGreaterThan(1);

  // The roller appends what fits and turns the misfits away: the sink says so, and rejects lists them.
  const deadline = Date.now() + 120_000;
  type Shown = { lag: { batches_waiting: number }; received: { batches: number }; rejects: { rows: number }; last_roll: unknown };
  let shown: Shown;
  for (;;) {
    shown = await json<Shown>(['sinks', 'show', 'events_in']);
    if (shown.last_roll && shown.lag.batches_waiting === 0 && shown.received.batches === again.batches) break;
    if (Date.now() > deadline) throw new Error(`the sink did not roll what was sent: ${JSON.stringify(shown)}`);
    await new Promise((r) => setTimeout(r, 2000));
  }
  expect(shown.rejects.rows).toBe(MISFITS);
  const rejects = await floe(['sinks', 'rejects', 'events_in'], env);
  expect(rejects.code).toBe(0);
  expect(rejects.stdout).toMatch(/misfit|not-a-number/);
  const rows = await floe(['rows', catalog, 'demo.events', '--limit', '3', '--json'], env);
  expect(rows.stderr).toContain(`3 rows of ${ROWS - MISFITS}`);

  // 4. usage, on a terminal (a chart per catalog) and as JSON
  const usage = await json<Record<string, unknown>>(['usage']);
  expect(JSON.stringify(usage)).toContain(catalog);
  expect(screenText((await floeTty(['usage'], env)).stdout)).toContain(catalog);

  // 5. a 50 MB blob: up through the store with multipart and a progress bar, down again, byte for byte
  const big = join(config.dir, 'big.bin');
  writeFileSync(big, randomBytes(50 * (1 << 20)));
  expect(statSync(big).size).toBe(50 * (1 << 20));
  const put = await floeTty(['blobs', 'put', catalog, big, 'files/big.bin'], env);
  expect(put.code).toBe(0);
  expect(screenText(put.stdout)).toMatch(/100%\s+52\.4 MB\/52\.4 MB/);
  const ls = await json<{ objects: Array<{ key: string; size: number }> }>(['blobs', 'ls', catalog, 'files/']);
  expect(ls.objects).toEqual([expect.objectContaining({ key: 'files/big.bin', size: 50 * (1 << 20) })]);
  const back = join(config.dir, 'back.bin');
  expect((await floe(['blobs', 'get', catalog, 'files/big.bin', back], env)).code).toBe(0);
  expect(await sha256(back)).toBe(await sha256(big));
  // The short-lived uploader the put made is revoked again.
  const uploaders = await json<{ uploaders: Array<{ status: string }> }>(['uploaders', 'list', catalog]);
  expect(uploaders.uploaders).toEqual([]);

  // 6. delete (the person types the name) and restore
  const deleting = await floeTty(['catalogs', 'delete', catalog], env, `${catalog}\n`);
  expect(deleting.code).toBe(0);
  // The test stack's grace period is seconds long; a loaded machine must not run out of it before the restore.
  await sql(`UPDATE warehouses SET teardown_after = now() + interval '10 minutes' WHERE id = $1`, [made.warehouse_id]);
  expect(screenText(deleting.stdout)).toContain(`Type "${catalog}" to confirm:`);
  const deleted = await json<{ warehouses: Array<{ name: string; restorable_until: string }> }>(['catalogs', 'deleted']);
  expect(deleted.warehouses).toEqual([expect.objectContaining({ name: catalog, restorable_until: expect.any(String) })]);
  const restored = await floe(['catalogs', 'restore', catalog], env);
  expect({ code: restored.code, stderr: restored.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  const shownAfter = await json<{ name: string; status: string }>(['catalogs', 'show', catalog]);
  expect(shownAfter.name).toBe(catalog);

  // 7. logout revokes the agent
  const out = await floe(['auth', 'logout'], env);
  expect(out.code).toBe(0);
  expect(out.stdout).toContain('Revoked agent "first-day"');
  expect((await gateway().get('/v1/orgs').set(bearer(agentKey))).status).toBe(401);
  expect(JSON.parse(readFileSync(join(config.dir, 'config.json'), 'utf8'))).toEqual({ current: null, profiles: {} });
}, 600_000);

describe('refusals: one line with the code and a remedy, and an exit code by kind', () => {
  let admin: string;
  let memberKey: string;
  let adminAgentKey: string;
  let adminId: string;
  // A config directory of its own: nobody is logged in there.
  const own = tempConfigDir();
  afterAll(() => own.cleanup());
  const keyed = (key: string) => ({ FLOE_API_KEY: key, FLOE_BASE_URL: stack().base_url, FLOE_CONFIG_DIR: own.dir });

  beforeAll(async () => {
    const workspace = `clir-${uniq()}`;
    const signup = await gateway().post('/v1/signup').send({ email: `${workspace}@example.com`, workspace, engine: 'duckdb', accept_terms: true });
    expect(signup.status).toBe(201);
    admin = signup.body.api_key;
    const org = (await gateway().get('/v1/orgs').set(bearer(admin))).body.organizations[0];
    const agent = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(admin)).send({ name: `m-${uniq()}`, role: 'member' });
    expect(agent.status).toBe(201);
    memberKey = agent.body.api_key;
    const adminAgent = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(admin)).send({ name: `a-${uniq()}`, role: 'admin' });
    expect(adminAgent.status).toBe(201);
    adminAgentKey = adminAgent.body.api_key;
    adminId = (await gateway().get('/v1/api-keys').set(bearer(admin))).body.principal_id;
    // A table in `lake`, so that `demo.nope` is a table missing from a namespace that exists.
    const table = await gateway().post('/v1/tables').set(bearer(admin)).send({ warehouse_id: 'lake', namespace: 'demo', name: 'present', schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: false, type: 'long' }] } });
    expect(table.status).toBe(201);
  }, 60_000);

  const cases: Array<[string, () => [string[], NodeJS.ProcessEnv], string, number]> = [
    ['not logged in', () => [['catalogs', 'list'], { FLOE_BASE_URL: stack().base_url, FLOE_CONFIG_DIR: own.dir }], 'not_logged_in', 3],
    ['a key Floe does not know', () => [['catalogs', 'list'], keyed(`al_live_nokey${uniq()}_secret`)], 'invalid_api_key', 3],
    ['an unknown catalog', () => [['catalogs', 'show', `nope_${uniq()}`], keyed(admin)], 'warehouse_not_found', 1],
    ['an unknown table', () => [['tables', 'show', 'lake', 'demo.nope'], keyed(admin)], 'table_not_found', 1],
    ['an unknown sink', () => [['sinks', 'show', `nope_${uniq()}`], keyed(admin)], 'sink_not_found', 1],
    ['a catalog name taken', () => [['catalogs', 'create', 'lake'], keyed(admin)], 'already_exists', 1],
    ['a catalog name that is not one', () => [['catalogs', 'create', 'Not A Name!'], keyed(admin)], 'invalid_name', 1],
    ['an unknown key', () => [['keys', 'revoke', `k_nope${uniq()}`], keyed(admin)], 'api_key_not_found', 1],
    ['a member changing roles', () => [['members', 'set-role', adminId, 'member'], keyed(memberKey)], 'insufficient_role', 3],
    ['an agent publishing (a person\'s act)', () => [['catalogs', 'publish', 'lake', '--yes'], keyed(adminAgentKey)], 'person_required', 3],
    ['Floe out of reach', () => [['catalogs', 'list'], { ...keyed(admin), FLOE_BASE_URL: 'http://127.0.0.1:9' }], 'unreachable', 4],
  ];

  test.each(cases)('%s', async (_what, make, code, exit) => {
    const [args, runEnv] = make();
    const text = await floe(args, runEnv);
    expect({ code: text.code, stdout: text.stdout }).toEqual({ code: exit, stdout: '' });
    const line = text.stderr.trimEnd();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(code === 'unreachable' ? /^error: could not reach .* — check the address/ : code === 'not_logged_in' ? /^error: not logged in — Run `floe auth login`/ : new RegExp(`^error: ${code}: .+ \\(HTTP \\d{3}\\) — .+`));
    const asJson = await floe([...args, '--json'], runEnv);
    expect(asJson.code).toBe(exit);
    expect(JSON.parse(asJson.stderr)).toMatchObject({ error: { code, message: expect.any(String), remedy: expect.any(String) }, exit_code: exit });
  });

  test('a usage mistake is exit 2 and names the fix; a confirmation off a terminal needs --yes', async () => {
    const r = await floe(['catalogs', 'delete', 'lake'], keyed(admin));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not confirmed[\s\S]*--yes/);
    expect((await gateway().get('/v1/warehouses/lake').set(bearer(admin))).body.status).toBe('ready');
    const bad = await floe(['tables', 'create', 'lake', 'demo.x', '--columns', 'id:integer-ish'], keyed(admin));
    expect(bad.code).toBe(2);
  });
});
