import { uniq } from './control-plane-helpers';
import { bearer, expectError, gateway, identity, stack } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { postJsonFrom } from '../support/from-address';
import { linkTokenIn, newestMailTo } from '../support/mail';

// The device approval page, /app/device, in headless Chromium: a machine
// starts a login, the person opens the address it shows, signs in (or signs
// up) on the way, sees the machine's name and the catalogs it asked for at
// the levels they can give, narrows them and approves or denies; the machine
// then collects exactly what was chosen. Screenshots under
// .data/artifacts/pages-device.

const browser = chromiumForFile();
const shot = screenshots('pages-device');
const url = (p: string) => `${stack().base_url}${p}`;

/** The machine's start, from a loopback address of this file's own (starts are budgeted per address). */
async function startDevice(body: Record<string, unknown>): Promise<{ device_code: string; user_code: string; verification_uri_complete: string }> {
  const res = await postJsonFrom('127.0.0.44', url('/v1/auth/device'), body);
  if (res.status !== 200) throw new Error(`device start: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const poll = (deviceCode: string) => gateway().post('/v1/auth/device/token').send({ device_code: deviceCode });

/** A person with a password (password sign-up through the API): admin of an organisation with `lake`. */
async function personWithPassword(password: string) {
  const email = `pd-${uniq()}${uniq()}@example.com`;
  expect((await gateway().post('/v1/auth/signup').send({ email, full_name: 'Device Person', organization_name: 'Device Org', handle: `pd-${uniq()}${uniq()}` })).status).toBe(202);
  const link = await identity().get(`/internal/login-tokens/${encodeURIComponent(email)}`).set(bearer(stack().bootstrap_secret));
  const set = await gateway().post('/v1/auth/password/set').send({ token: link.body.token, password });
  expect(set.status).toBe(200);
  return { email, access: set.body.access_token as string, lake: set.body.warehouse.warehouse_id as string, project: set.body.warehouse.project_id as string };
}

test('signed out: sign in on the way, untick a catalog, approve; the machine gets exactly what was chosen; then a denial', async () => {
  const password = 'a device page passphrase 1';
  const person = await personWithPassword(password);
  const second = await gateway().post('/v1/warehouses').set(bearer(person.access)).send({ project_id: person.project, name: 'scratch' });
  expect(second.status).toBe(201);
  const device = await startDevice({ hostname: 'ada-laptop', client_name: 'Ada laptop', warehouses: [{ name: 'lake', level: 'write' }, { name: 'scratch', level: 'write' }] });
  const page = await browser().newPage();

  // The address the machine shows; without a session the page sends the person to sign in, and back.
  await page.goto(device.verification_uri_complete);
  await page.waitForURL(/\/app\/login\?return_to=/);
  await page.getByLabel('Email address').fill(person.email);
  await page.getByLabel('Password').fill(password);
  await shot(page, '1-sign-in');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(device.verification_uri_complete);

  // The machine's name, and each catalog asked for at a level the person can give.
  await page.getByText('cli on ada-laptop asks to join Device Org as the agent “Ada laptop”').waitFor();
  expect(await page.getByLabel('lake', { exact: true }).isChecked()).toBe(true);
  expect(await page.getByLabel('scratch', { exact: true }).isChecked()).toBe(true);
  expect(await page.getByLabel('Level on lake', { exact: true }).inputValue()).toBe('write');
  await shot(page, '2-asked');
  await page.getByLabel('scratch', { exact: true }).uncheck();
  await page.getByLabel('Level on lake', { exact: true }).selectOption('read');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('status').filter({ hasText: 'Approved: Ada laptop gets read on lake.' }).waitFor();
  await shot(page, '3-approved');

  const key = await poll(device.device_code);
  expect(key.status).toBe(200);
  expect(key.body.connection.grants).toEqual([{ warehouse_id: person.lake, name: 'lake', level: 'read' }]);
  // Opened again, the page shows the outcome instead of asking.
  await page.reload();
  await page.getByRole('status').filter({ hasText: 'This device login is used (read on lake).' }).waitFor();

  // A second machine, refused; a mistyped code shows the refusal on the code form.
  const other = await startDevice({ hostname: 'intruder' });
  await page.goto(url('/app/device'));
  await page.getByLabel('Code shown on your device').fill('ZZZZ-ZZZZ');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('alert').filter({ hasText: 'no device login waiting for a decision' }).waitFor();
  await page.getByLabel('Code shown on your device').fill(other.user_code.toLowerCase());
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByText('cli on intruder asks to join').waitFor();
  await page.getByRole('button', { name: 'Deny' }).click();
  await page.getByRole('status').filter({ hasText: 'Denied: intruder will not be connected.' }).waitFor();
  await shot(page, '4-denied');
  expectError(await poll(other.device_code), 400, 'access_denied');
  await page.close();
}, 90_000);

test('a new person signs up on the way: the welcome link leads back to the device page, where the new catalog is offered', async () => {
  const email = `pd-new-${uniq()}${uniq()}@example.com`;
  const device = await startDevice({ hostname: 'new-laptop', requested_level: 'read' });
  const page = await browser().newPage();
  await page.goto(device.verification_uri_complete);
  await page.waitForURL(/\/app\/login\?return_to=/);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Your name').fill('New Person');
  await page.getByLabel('Organisation name').fill('New Device Org');
  await page.getByLabel('Organisation handle').fill(`pdn-${uniq()}${uniq()}`);
  await page.getByLabel(/I accept the Terms of Service/).check();
  await page.getByRole('button', { name: 'Send me a link' }).click();
  await page.getByRole('status').filter({ hasText: 'Check your mail' }).waitFor();

  const welcome = linkTokenIn(await newestMailTo(email), 'welcome');
  await page.goto(url(`/app/welcome?token=${encodeURIComponent(welcome)}`));
  await page.getByLabel('Password').fill('a brand new device passphrase');
  await page.getByRole('button', { name: 'Set password and continue' }).click();
  await page.waitForURL(device.verification_uri_complete);
  await page.getByText('cli on new-laptop asks to join New Device Org').waitFor();
  expect(await page.getByLabel('Level on lake', { exact: true }).inputValue()).toBe('read');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByRole('status').filter({ hasText: 'Approved: new-laptop gets read on lake.' }).waitFor();
  await shot(page, '5-new-person-approved');
  expect((await poll(device.device_code)).body.connection).toMatchObject({ name: 'new-laptop', grants: [{ name: 'lake', level: 'read' }] });
  await page.close();
}, 90_000);

test('the page is served like the others', async () => {
  const res = await gateway().get('/app/device');
  expect(res.status).toBe(200);
  expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
  expect((await gateway().get('/app/device.js')).status).toBe(200);
});
