import request from 'supertest';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { sql, stack } from './helpers';
import { sinkTestSchema } from './sink-helpers';

// Spec: Usage and audit — GET /v1/usage: every limit with its current value
// and headroom; per catalog the footprint by bucket, one row per UTC day, the
// trend and window totals, ingest_bytes; unmetered until the first sample;
// members and member tokens see only the catalogs they can see.

const usage = (key: string, query: Record<string, string> = {}) => gateway().get('/v1/usage').query(query).set(bearer(key));
const today = () => new Date().toISOString().slice(0, 10);

test('a fresh catalog is unmetered; the limits carry value, current and headroom; days are 1..30 (default 7)', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const w = await newWarehouse(admin.api_key, project.project_id);
  const res = await usage(admin.api_key);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ scope: 'organization', org_id: org.org_id, plan: 'free', days: 7, window: { to: today() }, traffic_note: expect.any(String) });
  expect(res.body.limits).toMatchObject({
    projects: { value: 20, current: 1, headroom: 19, over_limit: false },
    warehouses: { value: 200, current: 1, headroom: 199, over_limit: false },
    warehouses_per_project: { value: 10, current: 1, headroom: 9, per_project: [{ project_id: project.project_id, current: 1, headroom: 9 }] },
    storage_bytes: { value: 5_368_709_120, current: 0, headroom: 5_368_709_120, unmetered: true, measured_at: null, stale_after: null },
    public_storage_bytes: { value: 50 * 1024 ** 3, current: 0 },
    objects: { value: 1_000_000, current: 0 },
    device_sinks: { value: 10, current: 0, headroom: 10 },
  });
  expect(res.body.warehouses).toHaveLength(1);
  const row = res.body.warehouses[0];
  expect(row).toMatchObject({ warehouse_id: w.warehouse_id, name: w.name, unmetered: true, footprint: null, traffic: null, traffic_note: expect.any(String), trend: { bytes_change: null } });
  expect(row.days).toHaveLength(7);
  expect(row.days[6]).toMatchObject({ day: today(), bytes: null, measured_at: null, requests: null, bytes_in: null, bytes_out: null, ingest_bytes: 0 });
  expect((await usage(admin.api_key, { days: '30' })).body.warehouses[0].days).toHaveLength(30);
  expect((await usage(admin.api_key, { days: '1' })).body.warehouses[0].days).toHaveLength(1);
  for (const days of ['0', '31', 'abc', '1.5', '-2']) expect(expectError(await usage(admin.api_key, { days }), 400, 'invalid_value').field).toBe('days');
});

test('after data and a measure: footprint by bucket with measured_at and stale_after, one row per UTC day, trend, totals and ingest_bytes', async () => {
  const { admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const w = await newWarehouse(admin.api_key, project.project_id);
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'clicks', schema: sinkTestSchema }).expect(201);
  const sink = (await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: `s${uniq()}`, table: 'events.clicks', warehouse: w.name })).body;
  const body = '[{"id":1,"msg":"hello"},{"id":2,"msg":"world"}]';
  expect((await request(stack().base_url).post(`/v1/sinks/${sink.sink_id}`).set(bearer(sink.send_key)).set('Content-Type', 'application/json').set('Idempotency-Key', 'b1').send(body)).status).toBe(202);
  // An older sample two days ago: the trend runs from it to today's.
  await sql(`INSERT INTO usage_samples (warehouse_id, measured_at, source, table_bytes, blob_bytes, objects, blob_objects, complete)
             VALUES ($1, now() - interval '2 days', 'sweep', 0, 10, 0, 1, true)`, [w.warehouse_id]);
  const m = await gateway().post(`/v1/warehouses/${w.warehouse_id}/measure`).set(bearer(admin.api_key));
  expect(m.status).toBe(200);

  const res = await usage(admin.api_key, { project_id: project.name, days: '3' });
  expect(res.body.project_id).toBe(project.project_id);
  const row = res.body.warehouses.find((x: { warehouse_id: string }) => x.warehouse_id === w.warehouse_id);
  expect(row).toMatchObject({
    unmetered: false,
    footprint: { table: { bytes: m.body.table_bytes }, blob: { bytes: m.body.blob_bytes }, bytes: m.body.bytes, measured_at: m.body.measured_at, stale_after: m.body.stale_after, source: 'on_demand' },
  });
  expect(m.body.blob_bytes).toBeGreaterThan(0);
  expect(row.days.map((d: { day: string }) => d.day)[2]).toBe(today());
  expect(row.days[2]).toMatchObject({ bytes: m.body.bytes, measured_at: m.body.measured_at, ingest_bytes: Buffer.byteLength(body) });
  expect(row.days[0]).toMatchObject({ bytes: 10, objects: 1 });
  expect(row.days[1].bytes).toBeNull();
  expect(row.trend).toMatchObject({ from: row.days[0].day, to: today(), bytes_change: m.body.bytes - 10, direction: 'up' });
  expect(row.totals).toEqual({ ingest_bytes: Buffer.byteLength(body), requests: null, bytes_in: null, bytes_out: null });
  expect(res.body.limits.storage_bytes).toMatchObject({ current: m.body.bytes, headroom: 5_368_709_120 - m.body.bytes, measured_at: m.body.measured_at, unmetered: false });
  // A one-day window leaves the older sample out of the trend.
  expect((await usage(admin.api_key, { days: '1' })).body.warehouses[0].trend.bytes_change).toBe(0);
});

test('a member token sees only its granted catalogs; the scope-wide limits are still the organisation\'s', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const a = await newWarehouse(admin.api_key, project.project_id);
  const b = await newWarehouse(admin.api_key, project.project_id);
  const token = await newMember(org, 'agent');
  const person = await newMember(org);
  expect((await usage(token.api_key)).body.warehouses).toEqual([]);
  expect((await gateway().put(`/v1/warehouses/${b.warehouse_id}/grants/${token.principal_id}`).set(bearer(admin.api_key)).send({ level: 'read' })).status).toBe(200);
  const seen = await usage(token.api_key);
  expect(seen.body.warehouses.map((w: { warehouse_id: string }) => w.warehouse_id)).toEqual([b.warehouse_id]);
  expect(seen.body.limits.warehouses_per_project.current).toBe(2);
  // A person who is a member reads every catalog (implicit read) but not one an admin revoked.
  expect((await usage(person.api_key)).body.warehouses.map((w: { warehouse_id: string }) => w.warehouse_id).sort()).toEqual([a.warehouse_id, b.warehouse_id].sort());
  expect((await gateway().delete(`/v1/warehouses/${a.warehouse_id}/grants/${person.principal_id}`).set(bearer(admin.api_key))).status).toBe(200);
  expect((await usage(person.api_key)).body.warehouses.map((w: { warehouse_id: string }) => w.warehouse_id)).toEqual([b.warehouse_id]);
});

test('cross-tenant: a person never sees another organisation\'s usage', async () => {
  const a = await newOrgWithAdmin();
  const b = await newOrgWithAdmin();
  const pa = await newProject(a.admin.api_key);
  const wa = await newWarehouse(a.admin.api_key, pa.project_id);
  expectError(await usage(b.admin.api_key, { project_id: pa.project_id }), 404, 'project_not_found');
  expectError(await usage(b.admin.api_key, { project_id: pa.name }), 404, 'project_not_found');
  expectError(await usage(b.admin.api_key, { org_id: a.org.org_id }), 404, 'org_not_found');
  const own = await usage(b.admin.api_key);
  expect(own.body.org_id).toBe(b.org.org_id);
  expect(JSON.stringify(own.body)).not.toContain(wa.warehouse_id);
  expect(own.body.limits.projects.current).toBe(0);
  expectError(await gateway().get('/v1/usage'), 401, 'unauthorized');
});
