import request from 'supertest';
import { loadConfig } from '@floe/config';
import { join, newMember, newOrg, newOrgWithAdmin, newWarehouse, uniq, type TestOrg } from './control-plane-helpers';
import { bearer, expectError, gateway, newPrincipal, sql, stack } from './helpers';
import { postJsonFrom } from '../support/from-address';

// Spec: Device authorisation (command-line login) — the machine starts and
// polls without a credential, a person reads and decides signed in, and the
// agent is made when the machine collects its key, exactly once. Starts are
// budgeted per caller address, so this file's starts come from a loopback
// address of its own (127.0.0.x, bound by the test), and the budget test
// from another.

const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

/** POST /v1/auth/device through the gateway from one local address. */
const startFrom = (localAddress: string, body: unknown = {}) => postJsonFrom(localAddress, `${stack().base_url}/v1/auth/device`, body);

const MINE = '127.0.0.41';

async function start(body: Record<string, unknown> = {}) {
  const res = await startFrom(MINE, body);
  if (res.status !== 200) throw new Error(`device start: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { device_code: string; user_code: string } & Record<string, unknown>;
}

const poll = (deviceCode: string) => gateway().post('/v1/auth/device/token').send({ device_code: deviceCode });
const pending = (key: string, userCode: string, orgId?: string) => gateway().get('/v1/auth/device/pending').query({ user_code: userCode, ...(orgId ? { org_id: orgId } : {}) }).set(bearer(key));
const approve = (key: string, body: Record<string, unknown>) => gateway().post('/v1/auth/device/approve').set(bearer(key)).send(body);
const status = (key: string, userCode: string) => gateway().get('/v1/auth/device/status').query({ user_code: userCode }).set(bearer(key));

/** Moves a login's clock: its last poll `seconds` earlier, or its expiry into the past. */
const pollEarlier = (userCode: string, seconds: number) => sql(`UPDATE device_logins SET last_polled_at = last_polled_at - make_interval(secs => $2) WHERE user_code = $1`, [userCode, seconds]);
const expire = (userCode: string) => sql(`UPDATE device_logins SET expires_at = now() - interval '1 second' WHERE user_code = $1`, [userCode]);

/** A person who signed up in one call: admin of an organisation with the catalog `lake`. */
async function signedUp() {
  const res = await gateway().post('/v1/signup').send({ email: `dev-${uniq()}${uniq()}@example.com`, workspace: `dev-${uniq()}`, accept_terms: true });
  expect(res.status).toBe(201);
  return {
    key: res.body.api_key as string, principalId: res.body.principal_id as string, org: { org_id: res.body.organization.org_id } as TestOrg,
    project: res.body.project_id as string, lake: res.body.warehouse_id as string,
  };
}

let admin: Awaited<ReturnType<typeof signedUp>>;

beforeAll(async () => {
  admin = await signedUp();
}, 60_000);

describe('POST /v1/auth/device', () => {
  test('the codes, the addresses and the defaults; the answer is not cached', async () => {
    const res = await startFrom(MINE, {});
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const base = stack().base_url;
    expect(res.body).toEqual({
      device_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      user_code: expect.stringMatching(USER_CODE),
      verification_uri: `${base}/app/device`,
      verification_uri_complete: `${base}/app/device?user_code=${res.body.user_code}`,
      expires_in: 900,
      interval: 5,
      client_name: 'cli',
      requested_level: 'write',
      requested_role: 'member',
      warehouse_ids: [],
      warehouses: [],
    });
    const named = await start({ hostname: 'ada-laptop', requested_level: 'read', warehouses: [{ name: 'lake' }, { warehouse_id: admin.lake, level: 'write' }] });
    expect(named).toMatchObject({
      client_name: 'ada-laptop', requested_level: 'read', warehouse_ids: ['lake', admin.lake],
      warehouses: [{ name: 'lake', level: 'read' }, { warehouse_id: admin.lake, level: 'write' }],
    });
    expect(named.user_code).not.toBe(res.body.user_code);
    // The older spelling: ids or names, all at the requested level.
    const older = await start({ client: 'floe-cli', hostname: 'h1', client_name: 'Build box', warehouse_ids: ['lake'] });
    expect(older).toMatchObject({ client_name: 'Build box', requested_level: 'write', warehouse_ids: ['lake'], warehouses: [{ name: 'lake', level: 'write' }] });
  });

  test.each([
    [{ requested_level: 'admin' }, 'requested_level'],
    [{ requested_role: 'owner' }, 'requested_role'],
    [{ warehouses: [{ level: 'read' }] }, 'warehouses.0'],
    [{ warehouses: [{ name: 'lake', warehouse_id: 'x' }] }, 'warehouses.0'],
    [{ warehouses: [{ name: 'lake' }], warehouse_ids: ['lake'] }, 'warehouse_ids'],
    [{ warehouse_ids: ['no spaces please'] }, 'warehouse_ids.0'],
    [{ hostname: 'two\nlines' }, 'hostname'],
    [{ client_name: 'x'.repeat(101) }, 'client_name'],
    [{ warehouses: 'lake' }, 'warehouses'],
    [['not', 'an', 'object'], 'body'],
  ])('400 invalid_value for %j', async (body, field) => {
    const res = await startFrom(MINE, body);
    expect({ status: res.status, code: res.body.error.code, field: res.body.error.field }).toEqual({ status: 400, code: 'invalid_value', field });
  });

  test('the hourly budget per caller address, then 429 rate_limited with Retry-After; another address is not held back', async () => {
    const budget = loadConfig().deviceStartsPerHour;
    const address = '127.0.0.42';
    const answers = await Promise.all(Array.from({ length: budget }, () => startFrom(address)));
    expect(answers.map((a) => a.status)).toEqual(Array(budget).fill(200));
    const over = await startFrom(address);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatchObject({ code: 'rate_limited', retry_after_seconds: Number(over.headers['retry-after']) });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect((await startFrom('127.0.0.43')).status).toBe(200);
  }, 60_000);
});

describe('POST /v1/auth/device/token while undecided', () => {
  test('invalid_grant for an unknown code; a missing code is refused', async () => {
    expectError(await poll('not-a-device-code'), 400, 'invalid_grant');
    expectError(await gateway().post('/v1/auth/device/token').send({}), 400, 'missing_field');
  });

  test('authorization_pending; polled sooner than the interval: slow_down, and the interval grows by 5 s each time', async () => {
    const s = await start();
    expect(expectError(await poll(s.device_code), 400, 'authorization_pending').interval).toBe(5);
    expect(expectError(await poll(s.device_code), 400, 'slow_down').interval).toBe(10);
    expect(expectError(await poll(s.device_code), 400, 'slow_down').interval).toBe(15);
    // Waiting less than the grown interval is still too soon; waiting it out is not.
    await pollEarlier(s.user_code, 12);
    expect(expectError(await poll(s.device_code), 400, 'slow_down').interval).toBe(20);
    await pollEarlier(s.user_code, 21);
    expect(expectError(await poll(s.device_code), 400, 'authorization_pending').interval).toBe(20);
  });

  test('polls fired together are judged one after another: one authorization_pending, the rest slow_down', async () => {
    const s = await start();
    const answers = await Promise.all(Array.from({ length: 5 }, () => poll(s.device_code)));
    const codes = answers.map((a) => a.body.error.code).sort();
    expect(codes).toEqual(['authorization_pending', 'slow_down', 'slow_down', 'slow_down', 'slow_down']);
    expect(Math.max(...answers.map((a) => a.body.error.interval))).toBe(25);
  });

  test('expired_token once the code is past its 900 s; nobody can read or decide it then', async () => {
    const s = await start();
    await expire(s.user_code);
    expectError(await poll(s.device_code), 400, 'expired_token');
    expectError(await pending(admin.key, s.user_code), 404, 'device_code_not_found');
    expectError(await approve(admin.key, { user_code: s.user_code }), 404, 'device_code_not_found');
    expect((await status(admin.key, s.user_code)).body).toMatchObject({ status: 'expired', claimed: false, connection: null, expires_in: 0 });
  });
});

describe('GET /v1/auth/device/pending', () => {
  test('what the machine asked for, against the catalogs the person holds; reading decides nothing', async () => {
    const s = await start({ hostname: 'ada-laptop', client_name: 'Ada laptop' });
    const res = await pending(admin.key, s.user_code.toLowerCase().replace('-', ' '));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user_code: s.user_code, client: 'cli', hostname: 'ada-laptop', client_name: 'Ada laptop', requested_level: 'write', level: 'write',
      requested_role: 'member', role: 'member',
      organization: { org_id: admin.org.org_id, name: expect.any(String), handle: expect.any(String), role: 'admin' },
      warehouses: [{ warehouse_id: admin.lake, name: 'lake', level: 'write', my_level: 'write', my_via: 'admin', capped: false, pending: false, requested: true }],
      requested: [{ warehouse_id: admin.lake, name: 'lake', level: 'write' }],
      expires_in: expect.any(Number),
    });
    expect(res.body.expires_in).toBeGreaterThan(890);
    expect(res.body.expires_in).toBeLessThanOrEqual(900);
    expect((await status(admin.key, s.user_code)).body.status).toBe('pending');
    expectError(await poll(s.device_code), 400, 'authorization_pending');
  });

  test('a member is offered at most their own level; a catalog not asked for shows with level null', async () => {
    const member = await newMember(admin.org);
    const second = await newWarehouse(admin.key, admin.project, `second_${uniq()}`);
    const s = await start({ warehouses: [{ name: 'lake', level: 'write' }] });
    const res = await pending(member.api_key, s.user_code);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      level: 'read',
      organization: { org_id: admin.org.org_id, role: 'member' },
      warehouses: [
        { warehouse_id: admin.lake, name: 'lake', level: 'read', my_level: 'read', my_via: 'membership', capped: true, pending: false, requested: true },
        { warehouse_id: second.warehouse_id, name: second.name, level: null, my_level: 'read', my_via: 'membership', capped: false, pending: false, requested: false },
      ],
      requested: [{ warehouse_id: admin.lake, name: 'lake', level: 'read' }],
    });
  }, 60_000);

  test('an organisation without a catalog: `demo_data` is offered, to be made at approval', async () => {
    const { admin: a } = await newOrgWithAdmin();
    const s = await start({ requested_level: 'read' });
    const res = await pending(a.api_key, s.user_code);
    expect(res.status).toBe(200);
    expect(res.body.warehouses).toEqual([{ warehouse_id: null, name: 'demo_data', level: 'read', my_level: 'write', my_via: 'creator', capped: false, pending: true, requested: true }]);
    expect(res.body.requested).toEqual([]);
    expect((await gateway().get('/v1/warehouses').set(bearer(a.api_key))).body.warehouses).toEqual([]);
  });

  test('refusals: a token 403, a malformed code 400, an unknown code 404, a name not in the organisation 404, no or several organisations 409', async () => {
    const agent = await newPrincipal('agent');
    const s = await start({ warehouses: [{ name: 'no_such_catalog' }] });
    expectError(await pending(agent.api_key, s.user_code), 403, 'forbidden');
    expectError(await pending(admin.key, 'AEIO-UY01'), 400, 'invalid_value');
    expectError(await pending(admin.key, 'ZZZZ-GHJK'), 404, 'device_code_not_found');
    expectError(await pending(admin.key, s.user_code), 404, 'warehouse_not_found');
    expectError(await gateway().get('/v1/auth/device/pending').set(bearer(admin.key)), 400, 'missing_field');

    const plain = await start();
    const loner = await newPrincipal('human');
    expectError(await pending(loner.api_key, plain.user_code), 409, 'org_required');
    const twice = await newPrincipal('human');
    await join(admin.org, twice, 'member');
    const other = await newOrg();
    await join(other, twice, 'admin');
    expect(expectError(await pending(twice.api_key, plain.user_code), 409, 'org_required').available).toHaveLength(2);
    const chosen = await pending(twice.api_key, plain.user_code, other.org_id);
    expect(chosen.status).toBe(200);
    expect(chosen.body.organization).toMatchObject({ org_id: other.org_id, role: 'admin' });
  });
});

describe('POST /v1/auth/device/approve and GET /v1/auth/device/status', () => {
  test('approve: the connection as given, visible in status to the approver only', async () => {
    const s = await start({ hostname: 'ada-laptop' });
    const res = await approve(admin.key, { user_code: s.user_code });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      approved: true, claimed: false, user_code: s.user_code, client: 'cli', hostname: 'ada-laptop', client_name: 'ada-laptop', label: 'cli on ada-laptop',
      requested_level: 'write', requested_role: 'member',
      connection: { name: 'ada-laptop', level: 'write', role: 'member', org_id: admin.org.org_id, warehouses: [{ warehouse_id: admin.lake, name: 'lake', level: 'write' }] },
      expires_in: expect.any(Number), note: expect.any(String),
    });
    expect((await status(admin.key, s.user_code)).body).toEqual({
      user_code: s.user_code, status: 'approved', claimed: false, client: 'cli', hostname: 'ada-laptop', client_name: 'ada-laptop', expires_in: expect.any(Number),
      connection: { name: 'ada-laptop', org_id: admin.org.org_id, role: 'member', agent_id: null, warehouses: [{ warehouse_id: admin.lake, name: 'lake', level: 'write' }] },
    });
    const someoneElse = await newMember(admin.org);
    expectError(await status(someoneElse.api_key, s.user_code), 404, 'device_code_not_found');
    // Decided: not pending any more, not decidable again.
    expectError(await pending(admin.key, s.user_code), 404, 'device_code_not_found');
    expectError(await approve(admin.key, { user_code: s.user_code, deny: true }), 404, 'device_code_not_found');
    const audit = await gateway().get('/v1/audit').query({ action: 'device.*', org_id: admin.org.org_id }).set(bearer(admin.key));
    expect(audit.body.events.map((e: { action: string }) => e.action)).toContain('device.approve');
  });

  test('a pending code is visible to any signed-in person; status refuses tokens and malformed codes', async () => {
    const s = await start();
    const stranger = await newPrincipal('human');
    expect((await status(stranger.api_key, s.user_code)).body).toMatchObject({ status: 'pending', claimed: false, connection: null });
    expectError(await status((await newPrincipal('agent')).api_key, s.user_code), 403, 'forbidden');
    expectError(await status(stranger.api_key, 'BCDF-GHJ'), 400, 'invalid_value');
    expectError(await status(stranger.api_key, 'BCDF-GHJK-L'), 400, 'invalid_value');
  });

  test('deny: access_denied for the machine, status denied to the person who refused', async () => {
    const s = await start();
    const res = await approve(admin.key, { user_code: s.user_code, deny: true });
    expect(res.body).toMatchObject({ approved: false, claimed: false, user_code: s.user_code, connection: null });
    expectError(await poll(s.device_code), 400, 'access_denied');
    expect((await status(admin.key, s.user_code)).body).toMatchObject({ status: 'denied', claimed: false, connection: null });
    expectError(await status((await newPrincipal('human')).api_key, s.user_code), 404, 'device_code_not_found');
    expectError(await approve(admin.key, { user_code: s.user_code }), 404, 'device_code_not_found');
  });

  test('20 decisions of one code at once (approvals and denials): one decision, one audit; the machine gets what it says, one agent at most', async () => {
    // An approver of its own: each answer after the decision takes one of the person's hourly misses.
    const person = await signedUp();
    const s = await start({ hostname: `decide-${uniq()}` });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => approve(person.key, { user_code: s.user_code, ...(i % 2 ? { deny: true } : {}) })));
    const decided = answers.filter((a) => a.status === 200);
    expect(decided).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expectError(a, 404, 'device_code_not_found');
    const [{ id }] = await sql<{ id: string }>(`SELECT id FROM device_logins WHERE user_code = $1`, [s.user_code]);
    expect(await sql(`SELECT action FROM audit_events WHERE action IN ('device.approve', 'device.deny') AND target_id = $1`, [id]))
      .toEqual([{ action: decided[0].body.approved ? 'device.approve' : 'device.deny' }]);
    if (decided[0].body.approved) {
      const collected = await poll(s.device_code);
      expect(collected.status).toBe(200);
      expect(await sql(`SELECT principal_id FROM memberships WHERE source_ref = $1`, [`device_login:${id}`])).toEqual([{ principal_id: collected.body.principal_id }]);
    } else {
      expectError(await poll(s.device_code), 400, 'access_denied');
    }
  }, 60_000);

  test('a member gives at most their own level, whatever the machine or they ask', async () => {
    const member = await newMember(admin.org);
    const s = await start({ requested_level: 'write' });
    const res = await approve(member.api_key, { user_code: s.user_code, warehouses: [{ name: 'lake', level: 'write' }] });
    expect(res.status).toBe(200);
    expect(res.body.connection).toEqual({ name: 'cli', level: 'read', role: 'member', org_id: admin.org.org_id, warehouses: [{ warehouse_id: admin.lake, name: 'lake', level: 'read' }] });
  });

  test('the older spelling: `level` lowers, `warehouse_ids` narrows', async () => {
    const s = await start({ warehouses: [{ name: 'lake', level: 'write' }] });
    const res = await approve(admin.key, { user_code: s.user_code, level: 'read', warehouse_ids: [admin.lake] });
    expect(res.body.connection.warehouses).toEqual([{ warehouse_id: admin.lake, name: 'lake', level: 'read' }]);
  });

  test('refusals: a token, a catalog held at nothing, an empty choice, another organisation\'s catalog', async () => {
    const s = await start();
    expectError(await approve((await newPrincipal('agent')).api_key, { user_code: s.user_code }), 403, 'forbidden');
    expectError(await approve(admin.key, { user_code: s.user_code, warehouses: [] }), 400, 'invalid_value');
    expectError(await approve(admin.key, { user_code: 'AAAA-AAAA' }), 400, 'invalid_value');
    expectError(await approve(admin.key, { user_code: s.user_code, warehouses: [{ name: 'lake', level: 'owner' }] }), 400, 'invalid_value');

    // A member whose implicit read an admin revoked holds nothing on `lake`.
    const member = await newMember(admin.org);
    expect((await gateway().delete(`/v1/warehouses/${admin.lake}/grants/${member.principal_id}`).set(bearer(admin.key))).status).toBe(200);
    expectError(await approve(member.api_key, { user_code: s.user_code }), 403, 'forbidden');

    // A person of another organisation cannot give this organisation's catalog, by id or by name.
    const other = await signedUp();
    const intoTheirs = await start({ warehouses: [{ warehouse_id: admin.lake }] });
    expectError(await pending(other.key, intoTheirs.user_code), 404, 'warehouse_not_found');
    expectError(await approve(other.key, { user_code: intoTheirs.user_code }), 404, 'warehouse_not_found');
    expectError(await approve(other.key, { user_code: s.user_code, warehouses: [{ warehouse_id: admin.lake, level: 'read' }] }), 404, 'warehouse_not_found');
    // Still pending: none of the refusals decided anything.
    expect((await status(admin.key, s.user_code)).body.status).toBe('pending');
    expect((await status(admin.key, intoTheirs.user_code)).body.status).toBe('pending');
  }, 60_000);

  test('an organisation without a catalog gets `demo_data` at approval, in its default project', async () => {
    const { org, admin: a } = await newOrgWithAdmin();
    const s = await start();
    const res = await approve(a.api_key, { user_code: s.user_code });
    expect(res.status).toBe(200);
    const listed = (await gateway().get('/v1/warehouses').set(bearer(a.api_key))).body.warehouses;
    expect(listed).toEqual([expect.objectContaining({ name: 'demo_data', my_level: 'write' })]);
    expect(res.body.connection).toEqual({ name: 'cli', level: 'write', role: 'member', org_id: org.org_id, warehouses: [{ warehouse_id: listed[0].warehouse_id, name: 'demo_data', level: 'write' }] });
    // A second approval finds the catalog and makes no other.
    const again = await approve(a.api_key, { user_code: (await start()).user_code });
    expect(again.body.connection.warehouses).toEqual(res.body.connection.warehouses);
    expect((await gateway().get('/v1/warehouses').set(bearer(a.api_key))).body.warehouses).toHaveLength(1);
  }, 60_000);
  test('20 approvals of different codes at once in an organisation without a catalog: every one 200, one demo_data', async () => {
    const a = (await newOrgWithAdmin()).admin;
    const codes = await Promise.all(Array.from({ length: 20 }, () => start()));
    const answers = await Promise.all(codes.map((c) => approve(a.api_key, { user_code: c.user_code })));
    expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
    const listed = (await gateway().get('/v1/warehouses').set(bearer(a.api_key))).body.warehouses;
    expect(listed.map((w: { name: string }) => w.name)).toEqual(['demo_data']);
    expect(new Set(answers.map((r) => r.body.connection.warehouses[0].warehouse_id))).toEqual(new Set([listed[0].warehouse_id]));
  }, 90_000);
});

describe('collecting the key', () => {
  test('once approved: the agent\'s key, made at this poll; status shows it claimed; a second collection is invalid_grant', async () => {
    const s = await start({ hostname: 'ada-laptop', requested_level: 'read' });
    await approve(admin.key, { user_code: s.user_code });
    const res = await poll(s.device_code);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      api_key: expect.stringMatching(/^al_live_/), key_id: expect.any(String), label: 'cli on ada-laptop', principal_id: expect.any(String),
      kind: 'agent', token_type: 'api_key',
      connection: expect.objectContaining({
        agent_id: res.body.principal_id, name: 'ada-laptop', org_id: admin.org.org_id, role: 'member', created_by: admin.principalId,
        grants: [{ warehouse_id: admin.lake, name: 'lake', level: 'read' }],
      }),
      note: expect.any(String),
    });
    expect(res.body.api_key).toContain(res.body.key_id);
    // The key is the agent's, not the person's, and reaches exactly what was given.
    const seen = await gateway().get('/v1/warehouses').set(bearer(res.body.api_key));
    expect(seen.body.warehouses.map((w: { name: string; my_level: string }) => [w.name, w.my_level])).toEqual([['lake', 'read']]);
    expect((await status(admin.key, s.user_code)).body).toMatchObject({ status: 'used', claimed: true, connection: { agent_id: res.body.principal_id } });
    expectError(await poll(s.device_code), 400, 'invalid_grant');
    // Revoking the agent revokes the connection.
    expect((await gateway().delete(`/v1/orgs/${admin.org.org_id}/agents/${res.body.principal_id}`).set(bearer(admin.key))).status).toBe(200);
    expect((await gateway().get('/v1/warehouses').set(bearer(res.body.api_key))).status).toBe(401);
  });

  test('the approver is the agent\'s maker: removed from the organisation, the login\'s agent stops at its next request (creator_revoked)', async () => {
    const member = await newMember(admin.org);
    const s = await start({ hostname: `maker-${uniq()}`, requested_level: 'read' });
    expect((await approve(member.api_key, { user_code: s.user_code })).status).toBe(200);
    const res = await poll(s.device_code);
    expect(res.body.connection).toMatchObject({ created_by: member.principal_id });
    expect((await gateway().get(`/v1/warehouses/${admin.lake}`).set(bearer(res.body.api_key))).body.my_level).toBe('read');
    expect((await gateway().delete(`/v1/orgs/${admin.org.org_id}/members/${member.principal_id}`).set(bearer(admin.key))).status).toBe(200);
    expectError(await gateway().get(`/v1/warehouses/${admin.lake}`).set(bearer(res.body.api_key)), 403, 'creator_revoked');
    expectError(await gateway().get('/v1/warehouses').set(bearer(res.body.api_key)), 403, 'creator_revoked');
  });

  test('twenty polls at once after approval: one key, one agent', async () => {
    const s = await start({ hostname: `race-${uniq()}` });
    await approve(admin.key, { user_code: s.user_code });
    const answers = await Promise.all(Array.from({ length: 20 }, () => poll(s.device_code)));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(1);
    // The others: still being collected, or collected.
    const others = answers.filter((x) => x.status !== 200).map((a) => `${a.status} ${a.body.error.code}`);
    expect(others.filter((o) => o !== '400 authorization_pending' && o !== '400 invalid_grant')).toEqual([]);
    // One agent of that name in the organisation, holding the one key handed out.
    const listed = await gateway().get(`/v1/orgs/${admin.org.org_id}/agents`).set(bearer(admin.key));
    const made = listed.body.agents.filter((a: { name: string }) => a.name.startsWith(s.client_name as string));
    expect(made.map((a: { agent_id: string; created_via: string }) => [a.agent_id, a.created_via])).toEqual([[ok[0].body.principal_id, 'device']]);
    const keys = await sql<{ key_id: string }>(`SELECT key_id FROM api_keys WHERE principal_id = $1`, [ok[0].body.principal_id]);
    expect(keys.map((r) => r.key_id)).toEqual([ok[0].body.key_id]);
    expectError(await poll(s.device_code), 400, 'invalid_grant');
  }, 60_000);
});

describe('guessing user codes', () => {
  test('20 lookups an hour that match nothing, then 429 rate_limited for every lookup of that person, a real code included; others are not held back', async () => {
    const guesser = await signedUp();
    const s = await start({ hostname: `guess-${uniq()}` });
    for (let i = 0; i < 20; i++) {
      const route = [() => pending(guesser.key, `BBBB-${'CDFG'[i % 4]}${'CDFG'[(i >> 2) % 4]}BB`), () => status(guesser.key, 'ZZZZ-ZZZZ'), () => approve(guesser.key, { user_code: 'XXXX-XXXX' })][i % 3];
      expectError(await route(), 404, 'device_code_not_found');
    }
    const held = expectError(await pending(guesser.key, 'BBBB-BBBB'), 429, 'rate_limited');
    expect(held.retry_after_seconds).toBeGreaterThan(0);
    const real = await pending(guesser.key, s.user_code);
    expect(real.status).toBe(429);
    expect(Number(real.headers['retry-after'])).toBeGreaterThan(0);
    expectError(await approve(guesser.key, { user_code: s.user_code }), 429, 'rate_limited');
    expect((await status(admin.key, s.user_code)).body.status).toBe('pending');
    expect((await pending(admin.key, s.user_code)).status).toBe(200);
  });
});

describe('the agent\'s role (requested_role)', () => {
  /** The caller's role in an organisation, as GET /v1/orgs answers it. */
  const roleIn = async (key: string, orgId: string) =>
    (await gateway().get('/v1/orgs').set(bearer(key))).body.organizations.find((o: { org_id: string }) => o.org_id === orgId).role;
  /** The audit data of a login's approval. */
  const approvalAudit = async (userCode: string) =>
    (await sql<{ data: Record<string, unknown> }>(
      `SELECT a.data FROM audit_events a JOIN device_logins d ON a.target_id = d.id WHERE a.action = 'device.approve' AND d.user_code = $1`, [userCode],
    )).map((r) => r.data);

  test('an admin approving an admin request: the collected key\'s agent is an admin of the organisation', async () => {
    const own = await signedUp();
    const second = await newWarehouse(own.key, own.project, `second_${uniq()}`);
    const s = await start({ hostname: `adm-${uniq()}`, requested_role: 'admin', requested_level: 'read' });
    expect(s.requested_role).toBe('admin');
    expect((await pending(own.key, s.user_code)).body).toMatchObject({ requested_role: 'admin', role: 'admin', organization: { role: 'admin' } });

    const decided = await approve(own.key, { user_code: s.user_code });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ approved: true, requested_role: 'admin', connection: { role: 'admin', org_id: own.org.org_id } });
    expect(decided.body.note).not.toMatch(/capped/);
    expect(await approvalAudit(s.user_code)).toEqual([expect.objectContaining({ requested_role: 'admin', role: 'admin' })]);
    expect((await status(own.key, s.user_code)).body.connection).toMatchObject({ role: 'admin', agent_id: null });

    const key = await poll(s.device_code);
    expect(key.status).toBe(200);
    expect(key.body.connection).toMatchObject({ role: 'admin', org_id: own.org.org_id, created_by: own.principalId });
    expect(await roleIn(key.body.api_key, own.org.org_id)).toBe('admin');
    // An admin agent sees every catalog of the organisation, not only the one given, and may delete one.
    const seen = await gateway().get('/v1/warehouses').set(bearer(key.body.api_key));
    expect(seen.body.warehouses.map((w: { name: string }) => w.name).sort()).toEqual(['lake', second.name].sort());
    const deleted = await gateway().delete(`/v1/warehouses/${second.warehouse_id}`).set(bearer(key.body.api_key)).send({ confirm: second.name });
    expect(deleted.status).toBe(202);
    expect((await status(own.key, s.user_code)).body.connection).toMatchObject({ role: 'admin', agent_id: key.body.principal_id });
  }, 60_000);

  test('a member approving an admin request gives a member agent, whatever they ask; the answers say so', async () => {
    const member = await newMember(admin.org);
    const s = await start({ hostname: `capped-${uniq()}`, requested_role: 'admin', requested_level: 'read' });
    expect((await pending(member.api_key, s.user_code)).body).toMatchObject({ requested_role: 'admin', role: 'member', organization: { role: 'member' } });

    const decided = await approve(member.api_key, { user_code: s.user_code, role: 'admin' });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ approved: true, requested_role: 'admin', connection: { role: 'member' } });
    expect(decided.body.note).toMatch(/capped/);
    expect(await approvalAudit(s.user_code)).toEqual([expect.objectContaining({ requested_role: 'admin', role: 'member' })]);
    expect((await status(member.api_key, s.user_code)).body.connection).toMatchObject({ role: 'member' });

    const key = await poll(s.device_code);
    expect(key.status).toBe(200);
    expect(key.body.connection).toMatchObject({ role: 'member', created_by: member.principal_id });
    expect(await roleIn(key.body.api_key, admin.org.org_id)).toBe('member');
    // Refused before the confirmation is asked for (sent without one, so a wrong answer deletes nothing shared).
    expectError(await gateway().delete(`/v1/warehouses/${admin.lake}`).set(bearer(key.body.api_key)), 403, 'forbidden');
  });

  test('the approver may lower an admin request with `role: member`, not raise a member request', async () => {
    const s = await start({ hostname: `lowered-${uniq()}`, requested_role: 'admin', requested_level: 'read' });
    const decided = await approve(admin.key, { user_code: s.user_code, role: 'member' });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ requested_role: 'admin', connection: { role: 'member' } });
    expect(decided.body.note).not.toMatch(/capped/);
    const key = await poll(s.device_code);
    expect(key.status).toBe(200);
    expect(key.body.connection.role).toBe('member');
    expect(await roleIn(key.body.api_key, admin.org.org_id)).toBe('member');

    const plain = await start({ hostname: `raised-${uniq()}` });
    expect(expectError(await approve(admin.key, { user_code: plain.user_code, role: 'admin' }), 400, 'invalid_value').field).toBe('role');
    expectError(await approve(admin.key, { user_code: plain.user_code, role: 'owner' }), 400, 'invalid_value');
    expect((await status(admin.key, plain.user_code)).body.status).toBe('pending');
  });

  test('an approver demoted between the approval and the collection gives a member agent', async () => {
    const own = await signedUp();
    const other = await newMember(own.org, 'human', 'admin');
    const s = await start({ hostname: `demoted-${uniq()}`, requested_role: 'admin', requested_level: 'read' });
    expect((await approve(other.api_key, { user_code: s.user_code })).body.connection).toMatchObject({ role: 'admin' });
    expect((await gateway().patch(`/v1/orgs/${own.org.org_id}/members/${other.principal_id}`).set(bearer(own.key)).send({ role: 'member' })).status).toBe(200);
    const key = await poll(s.device_code);
    expect(key.status).toBe(200);
    expect(key.body.connection).toMatchObject({ role: 'member', created_by: other.principal_id });
  });
});

describe('a collection whose poll died', () => {
  test('a poll that claimed the login and died before its one transaction committed made nothing: once its claim is stale the next poll makes the one agent', async () => {
    const own = await signedUp();
    const host = `died-${uniq()}`;
    const s = await start({ hostname: host, requested_level: 'read' });
    expect((await approve(own.key, { user_code: s.user_code })).status).toBe(200);
    // What the dying poll left: its claim (the row `used`, no agent recorded), now older than the lease.
    await sql(`UPDATE device_logins SET status = 'used', claimed_at = now() - interval '1 hour' WHERE user_code = $1`, [s.user_code]);
    expect((await gateway().get(`/v1/orgs/${own.org.org_id}/agents`).set(bearer(own.key))).body.agents).toEqual([]);

    const res = await poll(s.device_code);
    expect(res.status).toBe(200);
    expect(res.body.connection).toMatchObject({ name: host, grants: [{ warehouse_id: own.lake, name: 'lake', level: 'read' }] });
    expect((await gateway().get('/v1/warehouses').set(bearer(res.body.api_key))).status).toBe(200);
    const live = (await gateway().get(`/v1/orgs/${own.org.org_id}/agents`).set(bearer(own.key))).body.agents;
    expect(live.map((a: { agent_id: string; name: string }) => [a.agent_id, a.name])).toEqual([[res.body.principal_id, host]]);
    const [login] = await sql<{ agent_id: string; key_id: string }>(`SELECT agent_id, key_id FROM device_logins WHERE user_code = $1`, [s.user_code]);
    expect(login).toEqual({ agent_id: res.body.principal_id, key_id: res.body.key_id });
    // Collected: a later poll is told so, and makes nothing more.
    expectError(await poll(s.device_code), 400, 'invalid_grant');
  });
});

describe('the organisation policy (PATCH /v1/orgs/{org_id}/policy device_login)', () => {
  test('reserved to admins: a member\'s approval is 403 org_policy_forbids and decides nothing; an admin\'s goes through', async () => {
    const own = await signedUp();
    const member = await newMember(own.org);
    expect((await gateway().patch(`/v1/orgs/${own.org.org_id}/policy`).set(bearer(own.key)).send({ device_login: 'admins' })).status).toBe(200);
    const s = await start({ hostname: `pol-${uniq()}` });
    const refused = expectError(await approve(member.api_key, { user_code: s.user_code, org_id: own.org.org_id }), 403, 'org_policy_forbids');
    expect(refused.policy).toEqual({ device_login: 'admins' });
    expect((await status(own.key, s.user_code)).body.status).toBe('pending');
    expectError(await poll(s.device_code), 400, 'authorization_pending');
    expect((await approve(own.key, { user_code: s.user_code })).status).toBe(200);
    await pollEarlier(s.user_code, 10);
    expect((await poll(s.device_code)).status).toBe(200);
  });

  test('switched off after an approval: the machine\'s poll is 403 org_policy_forbids and no agent is made', async () => {
    const own = await signedUp();
    const s = await start({ hostname: `off-${uniq()}` });
    expect((await approve(own.key, { user_code: s.user_code })).status).toBe(200);
    expect((await gateway().patch(`/v1/orgs/${own.org.org_id}/policy`).set(bearer(own.key)).send({ device_login: 'nobody' })).status).toBe(200);
    expectError(await poll(s.device_code), 403, 'org_policy_forbids');
    const agents = await gateway().get(`/v1/orgs/${own.org.org_id}/agents`).set(bearer(own.key));
    expect(agents.body.agents).toEqual([]);
    // Nobody approves now, admins included.
    const next = await start({ hostname: `off-${uniq()}` });
    expectError(await approve(own.key, { user_code: next.user_code }), 403, 'org_policy_forbids');
  });
});
