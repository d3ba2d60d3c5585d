import { COMMIT_GATE_HEADER, GATE_WAIT_MS, holdCommitGate } from '@floe/db/commit-gate';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { catalog, token } from './catalog-helpers';
import { bearer, db, stack } from './helpers';

// Issue 28: a table's commit gate (packages/db commit-gate.ts). While a
// maintenance run holds it, the catalog makes other commits to that table
// wait before they read it — never refused, never past GATE_WAIT_MS — and
// lets the holder's own commits (X-Floe-Commit-Gate) and every other
// table's commits through at once.

let wh: TestWarehouse;
let rw: string;
const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] };
const tablePath = (name: string) => `/v1/${wh.id}/namespaces/gate/tables/${name}`;
const setProperty = (name: string, key: string, headers: Record<string, string> = {}) =>
  catalog().post(tablePath(name)).set(bearer(rw)).set(headers).send({ updates: [{ action: 'set-properties', updates: { [key]: 'v' } }] });
const gateOf = (name: string) => ({ warehouseId: wh.id, namespace: ['gate'], name });

beforeAll(async () => {
  wh = await createTestWarehouse(stack());
  rw = await token(wh.rw.clientId, wh.rw.clientSecret);
  await catalog().post(`/v1/${wh.id}/namespaces`).set(bearer(rw)).send({ namespace: ['gate'] }).expect(200);
  for (const name of ['held', 'other', 'stuck']) await catalog().post(`/v1/${wh.id}/namespaces/gate/tables`).set(bearer(rw)).send({ name, schema }).expect(200);
}, 60_000);

afterAll(async () => {
  await removeTestWarehouse(wh);
}, 60_000);

test('a held gate holds back new commits to its table until it opens; the holder and other tables go at once', async () => {
  const pool = db();
  try {
    const answered: string[] = [];
    const note = (label: string) => (res: { status: number }) => { answered.push(`${label} ${res.status}`); return res; };
    let waiting!: Promise<unknown>;
    await holdCommitGate(pool, gateOf('held'), async () => {
      waiting = setProperty('held', 'writer').then(note('writer'));
      await setProperty('held', 'holder', { [COMMIT_GATE_HEADER]: 'held' }).then(note('holder'));
      await setProperty('other', 'elsewhere').then(note('other table'));
      await new Promise((r) => setTimeout(r, 1000));
      answered.push('gate opened');
    });
    await waiting;
    expect(answered).toEqual(['holder 200', 'other table 200', 'gate opened', 'writer 200']);
    // Both commits to the held table landed: the writer waited, it was not refused.
    const props = (await catalog().get(tablePath('held')).set(bearer(rw)).expect(200)).body.metadata.properties;
    expect(props).toMatchObject({ writer: 'v', holder: 'v' });
  } finally {
    await pool.end();
  }
}, 60_000);

test('a gate held past the wait lets the commit go on regardless', async () => {
  const pool = db();
  try {
    const answered: string[] = [];
    await holdCommitGate(pool, gateOf('stuck'), async () => {
      const started = Date.now();
      const res = await setProperty('stuck', 'impatient');
      answered.push(`writer ${res.status}`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(GATE_WAIT_MS - 50);
      await new Promise((r) => setTimeout(r, 200));
      answered.push('gate opened');
    });
    expect(answered).toEqual(['writer 200', 'gate opened']);
  } finally {
    await pool.end();
  }
}, 60_000);
