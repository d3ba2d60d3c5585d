// `floe login` as a person meets it: the real binary runs as a child process
// and prints an address; a person opens it in headless Chromium, signs in on
// the way, narrows what the machine asked for on the approval page and
// approves; the binary stores the agent's key and `floe catalogs` lists
// exactly the approved catalogs at the approved levels. Denied on the page,
// the binary ends with a clear message and exit code 1.
import { bearer, gateway, stack } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { floe, startFloe, tempConfigDir, type Running } from '../support/floe-cli';
import { personWithPassword, signInOnTheWay, type PersonWithSession } from '../support/people';

const browser = chromiumForFile();
const shot = screenshots('cli-login-browser');
const PASSWORD = 'a command line passphrase 7';
/** The address line `floe login` prints, with the code in it. */
const ADDRESS = /^ {2}(https?:\/\/\S+user_code=([A-Z0-9]{4}-[A-Z0-9]{4}))$/m;

let person: PersonWithSession;
const running: Running[] = [];
const dirs: Array<() => void> = [];

beforeAll(async () => {
  person = await personWithPassword('clb', PASSWORD);
  expect((await gateway().post('/v1/warehouses').set(bearer(person.access)).send({ project_id: person.project, name: 'scratch' })).status).toBe(201);
}, 60_000);

afterEach(() => {
  for (const r of running.splice(0)) if (r.child.exitCode === null) r.child.kill();
});
afterAll(() => dirs.forEach((cleanup) => cleanup()));

async function startLogin(args: string[]) {
  const { dir, cleanup } = tempConfigDir();
  dirs.push(cleanup);
  const login = startFloe(['login', '--no-open', '--base-url', stack().base_url, ...args], { FLOE_CONFIG_DIR: dir });
  running.push(login);
  const [, address, code] = await login.waitFor(ADDRESS);
  return { login, address, code, dir };
}

/** Opens the address floe printed; signed out, the page sends the person to sign in and back. */
async function openSignedIn(address: string) {
  const page = await browser().newPage();
  await signInOnTheWay(page, address, person);
  return page;
}

test('approved on the page: floe stores the key and lists exactly the approved catalogs at the approved levels', async () => {
  const { login, address, dir } = await startLogin(['--name', 'build-box', '--catalog', 'lake:write', '--catalog', 'scratch:write']);
  const page = await openSignedIn(address);
  await page.getByText('as the agent “build-box”').waitFor();
  await page.getByLabel('scratch', { exact: true }).uncheck();
  await page.getByLabel('Level on lake', { exact: true }).selectOption('read');
  await shot(page, '1-narrowed');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('status').filter({ hasText: 'Approved: build-box gets read on lake.' }).waitFor();
  await page.close();

  const done = await login.done;
  expect(done.code).toBe(0);
  expect(done.stdout).toContain('Catalogs granted: lake (read)');
  const catalogs = await floe(['catalogs', '--json'], { FLOE_CONFIG_DIR: dir });
  expect(catalogs.code).toBe(0);
  expect(JSON.parse(catalogs.stdout).warehouses.map((w: { name: string; my_level: string }) => [w.name, w.my_level])).toEqual([['lake', 'read']]);
  const whoami = await floe(['whoami'], { FLOE_CONFIG_DIR: dir });
  expect(whoami.code).toBe(0);
  expect(whoami.stdout).toContain('build-box');
}, 90_000);

test('denied on the page: floe says so and exits 1', async () => {
  const { login, address } = await startLogin([]);
  const page = await openSignedIn(address);
  await page.getByRole('button', { name: 'Deny' }).click();
  await page.getByRole('status').filter({ hasText: 'Denied' }).waitFor();
  await page.close();
  const done = await login.done;
  expect(done.code).toBe(1);
  expect(done.stderr).toContain('login was denied');
}, 90_000);
