import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { until } from '../support/poll';
import { adminStorage } from '../support/store';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, uniq } from './control-plane-helpers';
import { catalogWithRows } from './deletion-helpers';
import { sinkTestSchema } from './sink-helpers';
import { sql } from './helpers';

// DELETE /v1/table and DELETE /v1/namespace (error index: table_has_sinks,
// namespace_not_empty, public_catalog, catalog_error, table_not_found,
// namespace_not_found): through the catalog as the warehouse's own identity.

const dropTable = (key: string, body: Record<string, unknown>) => gateway().delete('/v1/table').set(bearer(key)).send(body);
const dropNamespace = (key: string, body: Record<string, unknown>) => gateway().delete('/v1/namespace').set(bearer(key)).send(body);

async function objectsUnder(bucket: string, prefix: string): Promise<number> {
  return (await adminStorage().s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).KeyCount ?? 0;
}

test('DELETE /v1/table: refusals, then the table dropped and only its own files purged', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const c = await catalogWithRows(admin.api_key, (await newProject(admin.api_key)).project_id);
  const { w } = c;
  // A neighbour in the same namespace keeps its files.
  const neighbour = await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'views', schema: sinkTestSchema }).expect(201);
  const neighbourPrefix = `${String(neighbour.body.location).slice(`s3://${w.bucket}/`.length)}/`;
  const ref = { warehouse_id: w.warehouse_id, namespace: 'events', name: 'clicks' };

  expectError(await dropTable(admin.api_key, { warehouse_id: w.warehouse_id, namespace: 'events' }), 400, 'missing_field');
  expectError(await dropTable(member.api_key, ref), 403, 'forbidden');
  expectError(await dropTable(admin.api_key, { ...ref, name: 'ghost' }), 404, 'table_not_found');
  expectError(await dropTable(admin.api_key, { ...ref, namespace: 'nowhere' }), 404, 'namespace_not_found');

  // A live sink on the table.
  const sink = await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: `s${uniq()}`, table: 'events.clicks', warehouse: w.name });
  expect(sink.status).toBe(201);
  const held = expectError(await dropTable(admin.api_key, ref), 409, 'table_has_sinks');
  expect(held.sinks).toEqual([expect.objectContaining({ sink_id: sink.body.sink_id, table: 'events.clicks' })]);
  expectError(await dropNamespace(admin.api_key, { warehouse_id: w.warehouse_id, namespace: 'events' }), 409, 'table_has_sinks');
  await gateway().delete(`/v1/sinks/${sink.body.sink_id}`).set(bearer(admin.api_key)).expect(202);

  // A public catalog.
  await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: w.name }).expect(200);
  expectError(await dropTable(admin.api_key, ref), 409, 'public_catalog');
  expectError(await dropNamespace(admin.api_key, { warehouse_id: w.warehouse_id, namespace: 'events' }), 409, 'public_catalog');
  await gateway().delete(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).expect(200);

  // Dropped (query parameters work too), then purged: the neighbour's files stay.
  const before = await objectsUnder(w.bucket, neighbourPrefix);
  expect(before).toBeGreaterThan(0);
  expect(await objectsUnder(w.bucket, c.dataKey)).toBe(1);
  const dropped = await gateway().delete('/v1/table').query(ref).set(bearer(admin.api_key));
  expect(dropped.status).toBe(200);
  expect(dropped.body).toMatchObject({ table: 'events.clicks', warehouse_id: w.warehouse_id, dropped: true, purge: { status: 'queued' } });
  const prefix = String(dropped.body.location).slice(`s3://${w.bucket}/`.length);
  expect(c.dataKey.startsWith(`${prefix}/`)).toBe(true);
  await until('purge', async () => ((await objectsUnder(w.bucket, `${prefix}/`)) === 0 ? true : null), 30, 300);
  expect(await objectsUnder(w.bucket, neighbourPrefix)).toBe(before);
  expectError(await dropTable(admin.api_key, ref), 404, 'table_not_found');
  expect((await sql(`SELECT count(*) AS n FROM audit_events WHERE action = 'table.delete' AND data->>'warehouse_id' = $1`, [w.warehouse_id]))[0].n).toBe('1');
  expect((await gateway().get('/v1/tables').query({ warehouse: w.warehouse_id }).set(bearer(admin.api_key))).body.tables.map((t: { table: string }) => t.table)).toEqual(['events.views']);
});

test('DELETE /v1/namespace: not empty, unknown, then dropped', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const c = await catalogWithRows(admin.api_key, (await newProject(admin.api_key)).project_id);
  const ns = { warehouse_id: c.w.warehouse_id, namespace: 'events' };
  expectError(await dropNamespace(member.api_key, ns), 403, 'forbidden');
  const full = expectError(await dropNamespace(admin.api_key, ns), 409, 'namespace_not_empty');
  expect(full.tables).toEqual(['clicks']);
  expectError(await dropNamespace(admin.api_key, { ...ns, namespace: 'nowhere' }), 404, 'namespace_not_found');
  expectError(await dropNamespace(admin.api_key, { warehouse_id: c.w.warehouse_id }), 400, 'missing_field');
  await dropTable(admin.api_key, { ...ns, name: 'clicks' }).expect(200);
  const dropped = await dropNamespace(admin.api_key, ns);
  expect(dropped.status).toBe(200);
  expect(dropped.body).toEqual({ warehouse: c.w.name, warehouse_id: c.w.warehouse_id, namespace: 'events', dropped: true });
  expect((await gateway().get('/v1/namespaces').query({ warehouse: c.w.warehouse_id }).set(bearer(admin.api_key))).body.namespaces).toEqual([]);
  expectError(await dropNamespace(admin.api_key, ns), 404, 'namespace_not_found');
});
