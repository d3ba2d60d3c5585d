import { appendRows, icebergClient } from './append-helpers';
import { catalog } from './catalog-helpers';
import { bearer, expectError, gateway, newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';
import { until } from '../support/poll';

// Spec: Events `table.create`, `table.update`, `credentials.vend` — also for
// what engines do through the Iceberg REST endpoint (iceberg-js here), as
// the catalog credential; commits and vended credentials coalesced per
// table, credential and minute; Floe's own routes audited once, by the
// control plane.

type Event = { action: string; actor_id: string; actor_kind: string; org_id: string; target_id: string; data: Record<string, any> };

const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'name', required: false, type: 'string' }] };

test('an engine\'s create, commits, vended credentials and drop are audited as its catalog credential; 20 vends at once count 20', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  // A table made through the control plane: one table.create, the control plane's (the catalog does not add its own).
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'cp', name: 'made', schema }).expect(201);

  const credential = (await gateway().get('/v1/connection').query({ warehouse: w.name }).set(bearer(admin.api_key))).body.catalog_credential;
  const rw = (await catalog().post('/v1/oauth/tokens').type('form')
    .send({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret })).body.access_token as string;
  const engine = icebergClient(w.warehouse_id, rw);
  await engine.createNamespace({ namespace: ['lake'] });
  await engine.createTable({ namespace: ['lake'] }, { name: 'sales', schema: schema as never });
  const ref = { warehouseId: w.warehouse_id, bucket: w.bucket, token: rw, namespace: 'lake', table: 'sales' };
  for (let i = 0; i < 3; i++) await appendRows(ref, [{ id: BigInt(i), name: `r${i}` }]);
  const vend = () => catalog().get(`/v1/${w.warehouse_id}/namespaces/lake/tables/sales/credentials`).set(bearer(rw));
  expect((await Promise.all(Array.from({ length: 20 }, vend))).map((r) => r.status)).toEqual(Array(20).fill(200));
  await engine.dropTable({ namespace: ['lake'], name: 'sales' });

  const target = `${w.warehouse_id}/lake.sales`;
  const events = await until('the engine\'s events', async () => {
    const res = await gateway().get('/v1/audit').query({ org_id: org.org_id, limit: 1000 }).set(bearer(admin.api_key));
    const mine = (res.body.events as Event[]).filter((e) => e.target_id === target);
    return mine.some((e) => e.action === 'table.delete') ? mine : null;
  });
  const of = (action: string) => events.filter((e) => e.action === action);
  const counted = (action: string) => of(action).reduce((n, e) => n + e.data.count, 0);
  for (const e of events) expect(e).toMatchObject({ actor_id: credential.client_id, actor_kind: 'catalog_credential', org_id: org.org_id, data: { warehouse_id: w.warehouse_id, table: 'lake.sales', via: 'iceberg_rest' } });
  expect(of('table.create')).toHaveLength(1);
  expect(of('table.delete')).toHaveLength(1);
  // Three appends, each one commit (coalesced into a row per minute).
  expect(counted('table.update')).toBe(3);
  // Each append loaded the table with vended credentials once; the twenty asked at once count exactly.
  expect(counted('credentials.vend')).toBe(23);
  expect(of('credentials.vend').length).toBeLessThanOrEqual(2);

  const cpMade = await gateway().get('/v1/audit').query({ org_id: org.org_id, action: 'table.create', limit: 1000 }).set(bearer(admin.api_key));
  const cpEvents = (cpMade.body.events as Event[]).filter((e) => e.data.table === 'cp.made');
  expect(cpEvents).toHaveLength(1);
  expect(cpEvents[0]).toMatchObject({ actor_id: admin.principal_id, actor_kind: 'human' });

  // Another organisation's admin cannot read them.
  const other = await newOrgWithAdmin();
  expectError(await gateway().get('/v1/audit').query({ org_id: org.org_id }).set(bearer(other.admin.api_key)), 404, 'org_not_found');
}, 90_000);
