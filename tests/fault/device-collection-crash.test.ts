// Identity dies in the middle of a device login's collection — after the
// agent's principal and key were inserted, before its membership (the test
// holds the membership's unique key, so the collection waits there inside its
// transaction) — which used to be two HTTP calls apart (identity → control
// plane → identity). The collection is one transaction in identity now
// (packages/accounts), so the kill leaves nothing half-made: no orphan agent
// principal, no key, no membership; the login stays claimed, and once the
// claim is stale the next poll makes the one agent.
import pg from 'pg';
import request from 'supertest';
import { restartPrivateStack, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';
import { until } from '../support/poll';

let stateFile: string;
let state: StackState;
let pool: pg.Pool;

beforeAll(async () => {
  ({ state, stateFile } = await startPrivateStack('device-crash', { FLOE_LOG_LEVEL: 'warn' }));
  pool = new pg.Pool({ connectionString: state.database_url, max: 3 });
}, 240_000);

afterAll(async () => {
  await pool?.end();
  if (stateFile) await stopPrivateStack(stateFile);
}, 120_000);

const api = () => request(state.base_url);
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

test('identity killed mid-collection: no orphan agent, and the next poll after the claim lapses makes exactly one', async () => {
  const signup = await api().post('/v1/signup').send({ email: `crash-${Date.now()}@example.com`, workspace: `crash${Date.now() % 100000}`, accept_terms: true });
  expect(signup.status).toBe(201);
  const { api_key: key, organization: { org_id: orgId } } = signup.body;
  const host = `crash-host-${Date.now()}`;
  const started = await api().post('/v1/auth/device').send({ hostname: host, requested_level: 'read' });
  expect(started.status).toBe(200);
  expect((await api().post('/v1/auth/device/approve').set(bearer(key)).send({ user_code: started.body.user_code })).status).toBe(200);
  const [{ id: loginId }] = (await pool.query<{ id: string }>(`SELECT id FROM device_logins WHERE user_code = $1`, [started.body.user_code])).rows;

  // Hold the membership key the collection will insert, uncommitted: its insert waits on it, inside its transaction.
  const blocker = await pool.connect();
  await blocker.query('BEGIN');
  const stand = await request(state.services.identity.url).post('/internal/principals').set(bearer(state.bootstrap_secret)).send({ kind: 'agent', label: 'stand-in' });
  await blocker.query(`INSERT INTO memberships (org_id, principal_id, role, joined_via, source_ref) VALUES ($1, $2, 'member', 'device', $3)`,
    [orgId, stand.body.principal_id, `device_login:${loginId}`]);
  const polled = api().post('/v1/auth/device/token').send({ device_code: started.body.device_code }).then((r) => r.status, () => 'no answer');
  // The collection has inserted its principal and now waits on the membership key.
  await until('the collection to wait on the membership key', async () => {
    const { rows } = await pool.query(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%memberships%'`);
    return rows.length ? true : null;
  }, 30, 100);

  process.kill(state.services.identity.pid, 'SIGKILL');
  expect(await polled).not.toBe(200);
  await until('identity to be gone', async () => { try { process.kill(state.services.identity.pid, 0); return null; } catch { return true; } }, 10, 100);
  await blocker.query('ROLLBACK');
  blocker.release();

  // Nothing of the dead collection stands: no principal named for the host, no key, no membership; the login claimed, no agent recorded.
  const agents = (await pool.query(`SELECT id FROM principals WHERE display_name LIKE $1`, [`${host}%`])).rows;
  expect(agents).toEqual([]);
  expect((await pool.query(`SELECT count(*)::int AS n FROM memberships WHERE org_id = $1 AND joined_via = 'device'`, [orgId])).rows[0].n).toBe(0);
  const [login] = (await pool.query(`SELECT status, agent_id, key_id FROM device_logins WHERE id = $1`, [loginId])).rows;
  expect(login).toEqual({ status: 'used', agent_id: null, key_id: null });

  // Identity back; the claim lapsed (its lease, moved back here): the next poll makes the one agent.
  state = await restartPrivateStack(stateFile, { FLOE_LOG_LEVEL: 'warn' });
  await pool.query(`UPDATE device_logins SET claimed_at = now() - interval '1 hour' WHERE id = $1`, [loginId]);
  const collected = await request(state.base_url).post('/v1/auth/device/token').send({ device_code: started.body.device_code });
  expect(collected.status).toBe(200);
  expect((await request(state.base_url).get('/v1/warehouses').set(bearer(collected.body.api_key))).status).toBe(200);
  const made = (await pool.query(`SELECT p.id, m.source_ref FROM principals p JOIN memberships m ON m.principal_id = p.id WHERE p.display_name LIKE $1`, [`${host}%`])).rows;
  expect(made).toEqual([{ id: collected.body.principal_id, source_ref: `device_login:${loginId}` }]);
  expect((await pool.query(`SELECT agent_id FROM device_logins WHERE id = $1`, [loginId])).rows[0].agent_id).toBe(collected.body.principal_id);
}, 240_000);
