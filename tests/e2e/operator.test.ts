import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import request from 'supertest';
import { adminStorage } from '../support/store';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { identity, newPrincipal, sql, stack, type NewPrincipal } from './helpers';
import { sinkTestSchema } from './sink-helpers';

// Spec: Operator routes — plans, an organisation's limits, the operator's
// changes and their audit; and the quota journey an operator's change starts
// (Errors rule 4, Events `org.limits.update` and `quota.reject`).

const FREE_STORAGE = 5_368_709_120;
const PUBLIC_STORAGE = 50 * 1024 ** 3;
let operator: NewPrincipal;
beforeAll(async () => { operator = await newPrincipal('operator'); });

const asOperator = () => bearer(operator.api_key);
const patch = (org: string, body: unknown, who = asOperator()) => gateway().patch(`/v1/admin/orgs/${org}/limits`).set(who).send(body as object);

test('an operator is made only by the internal route with the bootstrap secret, never by sign-up', async () => {
  expect(operator.principal_id).toBeTruthy();
  const [row] = await sql(`SELECT kind FROM principals WHERE id = $1`, [operator.principal_id]);
  expect(row.kind).toBe('operator');
  expectError(await identity().post('/internal/principals').send({ kind: 'operator' }), 401, 'unauthorized');
  // The one-call sign-up makes a person whatever the body says.
  const email = `op${uniq()}@example.com`;
  const signed = await gateway().post('/v1/signup').send({ email, workspace: `op-${uniq()}`, kind: 'operator', accept_terms: true });
  expect(signed.status).toBe(201);
  const [p] = await sql(`SELECT kind FROM principals WHERE email = $1`, [email]);
  expect(p.kind).toBe('human');
  expectError(await gateway().get('/v1/admin/plans').set(bearer(signed.body.api_key)), 403, 'forbidden');
});

test('every operator route refuses a person, an organisation admin and an agent token: 403 forbidden', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const person = await newPrincipal('human');
  const agent = await newMember(org, 'agent', 'admin');
  for (const who of [person, admin, agent]) {
    expectError(await gateway().get('/v1/admin/plans').set(bearer(who.api_key)), 403, 'forbidden');
    expectError(await gateway().get(`/v1/admin/orgs/${org.org_id}/limits`).set(bearer(who.api_key)), 403, 'forbidden');
    expectError(await patch(org.org_id, { overrides: { storage_bytes: 1 } }, bearer(who.api_key)), 403, 'forbidden');
    expectError(await gateway().get(`/v1/admin/orgs/${org.org_id}/limits/audit`).set(bearer(who.api_key)), 403, 'forbidden');
  }
  expectError(await gateway().get('/v1/admin/plans'), 401, 'unauthorized');
  expect((await sql(`SELECT count(*)::int AS n FROM org_limits_audit WHERE org_id = $1`, [org.org_id]))[0].n).toBe(0);
});

test('GET /v1/admin/plans: free and custom with the free numbers, the override names, how each is enforced', async () => {
  const res = await gateway().get('/v1/admin/plans').set(asOperator());
  expect(res.status).toBe(200);
  expect(Object.keys(res.body.plans).sort()).toEqual(['custom', 'free']);
  expect(res.body.plans.free.limits).toEqual(res.body.plans.custom.limits);
  expect(res.body.plans.free.limits).toMatchObject({ storage_bytes: FREE_STORAGE, public_storage_bytes: 50 * 1024 ** 3, warehouses_per_project: 10, device_sinks: 10 });
  expect(res.body.override_names).toEqual(expect.arrayContaining(['storage_bytes', 'public_storage_bytes', 'objects', 'projects', 'warehouses_per_project', 'device_sinks']));
  for (const name of res.body.override_names) expect(typeof res.body.enforcement[name]).toBe('string');
});

test('refusals: org_not_found; invalid_value for a bad plan, override name or value, body field and audit limit', async () => {
  const { org } = await newOrgWithAdmin();
  expectError(await gateway().get('/v1/admin/orgs/no-such-org/limits').set(asOperator()), 404, 'org_not_found');
  expectError(await patch('org_nope', { note: 'x' }), 404, 'org_not_found');
  expectError(await gateway().get('/v1/admin/orgs/no-such-org/limits/audit').set(asOperator()), 404, 'org_not_found');
  const bad: Array<[unknown, string]> = [
    [{ plan: 'enterprise' }, 'plan'],
    [{ plan: 7 }, 'plan'],
    [{ overrides: { bananas: 3 } }, 'overrides.bananas'],
    [{ overrides: { storage_bytes: -1 } }, 'overrides.storage_bytes'],
    [{ overrides: { storage_bytes: 1.5 } }, 'overrides.storage_bytes'],
    [{ overrides: { storage_bytes: '10' } }, 'overrides.storage_bytes'],
    [{ overrides: [1] }, 'overrides'],
    [{ color: 'red' }, 'body'],
  ];
  for (const [body, field] of bad) expect([field, expectError(await patch(org.handle, body), 400, 'invalid_value').field]).toEqual([field, field]);
  for (const limit of ['0', '1001', 'abc', '-5']) {
    expectError(await gateway().get(`/v1/admin/orgs/${org.org_id}/limits/audit`).query({ limit }).set(asOperator()), 400, 'invalid_value');
  }
  // Nothing was written by a refusal.
  expect((await sql(`SELECT count(*)::int AS n FROM org_limits_audit WHERE org_id = $1`, [org.org_id]))[0].n).toBe(0);
});

test('PATCH: one limits-audit row and one org.limits.update event per call; a storage change re-sets every private bucket quota at once, a public allowance change every public table bucket\'s; null removes', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const a = await newWarehouse(admin.api_key, project.project_id);
  const b = await newWarehouse(admin.api_key, project.project_id);
  const pub = await newWarehouse(admin.api_key, project.project_id);
  // pub is public: its table bucket is in the public tier, so only its blob bucket follows the storage limit.
  expect((await gateway().post(`/v1/warehouses/${pub.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: pub.name })).status).toBe(200);
  const first = await patch(org.handle, { plan: 'custom', overrides: { storage_bytes: 3 * 1024 ** 3, projects: 5 }, note: 'pilot customer' });
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({
    org_id: org.org_id, plan: 'custom', overrides: { storage_bytes: 3 * 1024 ** 3, projects: 5 }, note: 'pilot customer',
    limits: { storage_bytes: { value: 3 * 1024 ** 3, enforcement: expect.any(String) }, projects: { value: 5 } },
    changed: expect.arrayContaining(['storage_bytes', 'projects']),
  });
  const buckets = [a.bucket, a.blob_bucket, b.bucket, b.blob_bucket, pub.blob_bucket].sort();
  expect(first.body.bucket_quotas).toEqual({ limit_value: 3 * 1024 ** 3, set: buckets, errors: [] });
  expect(first.body.public_bucket_quotas).toBeNull();
  for (const bucket of buckets) expect(await adminStorage().getBucketQuota(bucket)).toEqual({ enabled: true, maxBytes: 3 * 1024 ** 3 });
  expect(await adminStorage().getBucketQuota(pub.bucket)).toEqual({ enabled: true, maxBytes: PUBLIC_STORAGE });
  const publicTier = await patch(org.org_id, { overrides: { public_storage_bytes: 7 * 1024 ** 3 } });
  expect(publicTier.body).toMatchObject({ changed: ['public_storage_bytes'], bucket_quotas: null, public_bucket_quotas: { limit_value: 7 * 1024 ** 3, set: [pub.bucket], errors: [] } });
  expect(await adminStorage().getBucketQuota(pub.bucket)).toEqual({ enabled: true, maxBytes: 7 * 1024 ** 3 });
  expect((await patch(org.org_id, { overrides: { public_storage_bytes: null } })).body.public_bucket_quotas).toEqual({ limit_value: PUBLIC_STORAGE, set: [pub.bucket], errors: [] });

  // A note alone changes no limit and sets no quota, but is still one row and one event.
  const second = await patch(org.org_id, { note: 'renewed' });
  expect(second.body).toMatchObject({ note: 'renewed', changed: [], bucket_quotas: null, overrides: { storage_bytes: 3 * 1024 ** 3 } });
  const third = await patch(org.org_id, { overrides: { storage_bytes: null } });
  expect(third.body.overrides).toEqual({ projects: 5 });
  expect(third.body.limits.storage_bytes.value).toBe(FREE_STORAGE);
  for (const bucket of buckets) expect((await adminStorage().getBucketQuota(bucket)).maxBytes).toBe(FREE_STORAGE);

  const got = await gateway().get(`/v1/admin/orgs/${org.handle}/limits`).set(asOperator());
  expect(got.body).toMatchObject({ plan: 'custom', overrides: { projects: 5 }, note: 'renewed', updated_by: operator.principal_id });
  expect(got.body.changes.map((c: { note: string }) => c.note)).toEqual(['renewed', 'renewed', 'pilot customer', 'pilot customer', 'pilot customer']);
  expect(got.body.changes[4]).toMatchObject({ previous_plan: 'free', plan: 'custom', previous_overrides: {}, actor_id: operator.principal_id });
  const events = await sql(`SELECT actor_id, actor_kind, data FROM audit_events WHERE action = 'org.limits.update' AND org_id = $1 ORDER BY id`, [org.org_id]);
  expect(events.length).toBe(5);
  expect(events[0]).toMatchObject({ actor_id: operator.principal_id, actor_kind: 'operator', data: { plan: 'custom', previous_plan: 'free', bucket_quotas: { set: 5, errors: 0 }, public_bucket_quotas: null } });
  expect(events[1].data).toMatchObject({ bucket_quotas: null, public_bucket_quotas: { limit_value: 7 * 1024 ** 3, set: 1, errors: 0 } });
  const audit = await gateway().get(`/v1/admin/orgs/${org.org_id}/limits/audit`).query({ limit: '2' }).set(asOperator());
  expect(audit.body).toMatchObject({ count: 2, limit: 2 });
  expect(audit.body.changes[0].overrides).toEqual({ projects: 5 });
});

test('20 concurrent PATCHes of one organisation: 20 audit rows and a consistent final state', async () => {
  const { org } = await newOrgWithAdmin();
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => patch(org.org_id, { overrides: { [`projects`]: i + 1 }, note: `n${i}` })));
  expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
  const rows = await sql(`SELECT overrides, previous_overrides, note FROM org_limits_audit WHERE org_id = $1 ORDER BY id`, [org.org_id]);
  expect(rows.length).toBe(20);
  // Serialised: each change starts from the one before it.
  for (let i = 1; i < rows.length; i++) expect(rows[i].previous_overrides).toEqual(rows[i - 1].overrides);
  const [final] = await sql(`SELECT overrides, note FROM org_limits WHERE org_id = $1`, [org.org_id]);
  expect(final).toEqual({ overrides: rows[19].overrides, note: rows[19].note });
  expect((await sql(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'org.limits.update' AND org_id = $1`, [org.org_id]))[0].n).toBe(20);
}, 60_000);

test('quota journey: below the footprint every write path answers 409 quota_exceeded with one quota.reject each; reads work; raising lifts it', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const w = await newWarehouse(admin.api_key, project.project_id);
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'clicks', schema: sinkTestSchema }).expect(201);
  const sink = (await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: `s${uniq()}`, table: 'events.clicks', warehouse: w.name })).body;
  const device = (await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key)).send({})).body;
  const send = (batch: string) => request(stack().base_url).post(`/v1/sinks/${sink.sink_id}`).set(bearer(sink.send_key)).set('Content-Type', 'application/json').set('Idempotency-Key', batch).send('[{"id":1,"msg":"hello"}]');
  const devicePost = (body: string) => request(stack().ingest_url).post(new URL(device.device_url).pathname).set('Content-Type', 'application/json').send(body);
  // A footprint: a stored batch, measured now.
  expect((await send('b-1')).status).toBe(202);
  const measured = await gateway().post(`/v1/warehouses/${w.warehouse_id}/measure`).set(bearer(admin.api_key));
  expect(measured.status).toBe(200);
  const footprint = measured.body.bytes as number;
  expect(footprint).toBeGreaterThan(0);
  // A storage session vended before the limit changes, with one object written through it.
  const vended = (await gateway().post('/v1/credentials').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'clicks' }).expect(200)).body;
  const s3 = new S3Client({
    endpoint: vended.endpoint, region: vended.region, forcePathStyle: true,
    credentials: { accessKeyId: vended.credentials.access_key_id, secretAccessKey: vended.credentials.secret_access_key, sessionToken: vended.credentials.session_token },
  });
  const probe = `${vended.prefix}data/journey-${uniq()}.bin`;
  await s3.send(new PutObjectCommand({ Bucket: vended.bucket, Key: probe, Body: Buffer.alloc(1024, 1) }));
  const readOnly = async () => (await sql<{ read_only_since: Date | null }>(`SELECT read_only_since FROM warehouses WHERE id = $1`, [w.warehouse_id]))[0].read_only_since;
  const until = async (what: string, probeFn: () => Promise<boolean>) => {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) if (await probeFn()) return;
    throw new Error(`${what} did not happen within 60 s`);
  };

  // The operator lowers the storage limit below it.
  const lowered = await patch(org.org_id, { overrides: { storage_bytes: footprint - 1 }, note: 'journey: lower' });
  expect(lowered.body.bucket_quotas.set).toEqual([w.bucket, w.blob_bucket].sort());
  const over = { current: footprint, limit_value: footprint - 1, scope: 'organization' };
  expect(expectError(await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name: `more_${uniq()}` }), 409, 'quota_exceeded')).toMatchObject(over);
  expect(expectError(await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'more', schema: sinkTestSchema }), 409, 'quota_exceeded')).toMatchObject(over);
  expect(expectError(await gateway().post('/v1/credentials').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'clicks' }), 409, 'quota_exceeded')).toMatchObject(over);
  expect(expectError(await send('b-2'), 409, 'quota_exceeded')).toMatchObject(over);
  expect(expectError(await devicePost('{"id":2}'), 409, 'quota_exceeded')).toMatchObject(over);
  const rejects = await sql(`SELECT actor_kind, data->>'operation' AS operation FROM audit_events WHERE action = 'quota.reject' AND org_id = $1 ORDER BY id`, [org.org_id]);
  expect(rejects.map((r) => r.operation)).toEqual(['warehouse.create', 'table.create', 'credentials.vend', 'sink.send', 'sink.device_post']);
  expect(rejects.slice(3).map((r) => r.actor_kind)).toEqual(['send_key', 'device_token']);
  // Reading keeps working.
  expect((await gateway().get('/v1/table').query({ warehouse: w.name, namespace: 'events', name: 'clicks' }).set(bearer(admin.api_key))).status).toBe(200);
  expect((await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key))).status).toBe(200);
  expect((await gateway().get('/v1/usage').set(bearer(admin.api_key))).body.limits.storage_bytes).toMatchObject({ value: footprint - 1, current: footprint, headroom: 0, over_limit: true });

  // The next enforcement pass (the metering sweep) freezes the buckets: the store refuses the session's PUT, GETs work.
  await until('the enforcement pass freezing the catalog', async () => (await readOnly()) !== null);
  const refused = await s3.send(new PutObjectCommand({ Bucket: vended.bucket, Key: `${probe}.2`, Body: Buffer.alloc(1024, 2) })).then(() => null, (e: { $metadata?: { httpStatusCode?: number } }) => e);
  expect(refused?.$metadata?.httpStatusCode).toBe(403);
  expect((await (await s3.send(new GetObjectCommand({ Bucket: vended.bucket, Key: probe }))).Body!.transformToByteArray()).length).toBe(1024);

  // Raising it lifts every refusal, and the next pass lifts the freeze.
  const raised = await patch(org.org_id, { overrides: { storage_bytes: null }, note: 'journey: raise' });
  // Frozen buckets keep their freeze until the pass lifts it (spec: read-only flips follow the enforcement pass).
  expect(raised.body.bucket_quotas.set).toEqual([]);
  expect((await gateway().post('/v1/credentials').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'clicks' })).status).toBe(200);
  await until('the enforcement pass lifting the freeze', async () => (await readOnly()) === null);
  expect((await adminStorage().getBucketQuota(w.blob_bucket)).maxBytes).toBe(FREE_STORAGE);
  await s3.send(new PutObjectCommand({ Bucket: vended.bucket, Key: `${probe}.3`, Body: Buffer.alloc(1024, 3) }));
  expect((await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'more', schema: sinkTestSchema })).status).toBe(201);
  expect((await send('b-2')).status).toBe(202);
  expect((await devicePost('{"id":2}')).status).toBe(202);
  expect((await sql(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'quota.reject' AND org_id = $1`, [org.org_id]))[0].n).toBe(5);

  // Every step is in the limits audit and in the audit log the organisation's admin reads.
  const changes = (await gateway().get(`/v1/admin/orgs/${org.org_id}/limits/audit`).set(asOperator())).body.changes;
  expect(changes.map((c: { note: string }) => c.note)).toEqual(['journey: raise', 'journey: lower']);
  const log = await gateway().get('/v1/audit').query({ org_id: org.org_id, limit: '100' }).set(bearer(admin.api_key));
  const actions = (log.body.events as Array<{ action: string }>).map((e) => e.action);
  expect(actions.filter((a) => a === 'org.limits.update').length).toBe(2);
  expect(actions.filter((a) => a === 'quota.reject').length).toBe(5);
}, 120_000);

test('PATCH accepts the spec\'s `warehouses` override: the organisation\'s catalogs across its projects, exactly, with 20 creates at once', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const first = await newProject(admin.api_key);
  await newWarehouse(admin.api_key, first.project_id);
  const set = await patch(org.handle, { overrides: { warehouses: 2 } });
  expect(set.status).toBe(200);
  expect(set.body.overrides).toEqual({ warehouses: 2 });
  expect((await gateway().get(`/v1/admin/orgs/${org.org_id}/limits`).set(asOperator())).body.limits.warehouses).toMatchObject({ value: 2 });
  // Another project: the per-project limit (10) is far; the organisation's 2 lets exactly one more in.
  const second = await newProject(admin.api_key);
  const all = await Promise.all(Array.from({ length: 20 }, (_, i) => gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: second.project_id, name: `race_${i}_${uniq()}` })));
  expect(all.filter((r) => r.status === 201)).toHaveLength(1);
  const refused = all.filter((r) => r.status !== 201);
  expect(refused).toHaveLength(19);
  for (const r of refused) expect(expectError(r, 409, 'limit_exceeded')).toMatchObject({ limit: 'warehouses', limit_value: 2, current: 2 });
  const usage = await gateway().get(`/v1/usage?org_id=${org.org_id}`).set(bearer(admin.api_key));
  expect(usage.body.limits.warehouses).toMatchObject({ value: 2, current: 2, headroom: 0 });
  expect((await patch(org.org_id, { overrides: { warehouses: null } })).body.overrides).toEqual({});
});
