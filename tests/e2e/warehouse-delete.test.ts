import { Queue } from 'bullmq';
import { GetRoleCommand } from '@aws-sdk/client-iam';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import request from 'supertest';
import { queueConnection, queuePrefix, QUEUES, teardownJobId } from '@floe/queues';
import { readWithIcebird } from '../support/icebird';
import { until } from '../support/poll';
import { adminStorage } from '../support/store';
import { icebergClient } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { catalogWithRows, exchangeStatus, readStatus } from './deletion-helpers';
import { sql, stack } from './helpers';
import { blobReader } from './sink-objects';
import { sinkSetup, sinkTestSchema } from './sink-helpers';

// Spec: DELETE /v1/warehouses/{id}, the tombstone at GET /v1/warehouses/{id},
// POST /v1/warehouses refusals while a name is held; Floe's POST …/restore.
// The e2e stack's grace period is 10 s (global-setup.ts).

const del = (key: string, id: string, body?: unknown) => {
  const r = gateway().delete(`/v1/warehouses/${id}`).set(bearer(key));
  return body === undefined ? r : r.send(body as object);
};
const restore = (key: string, id: string) => gateway().post(`/v1/warehouses/${id}/restore`).set(bearer(key)).send({});
const auditCount = async (action: string, id: string) =>
  Number((await sql(`SELECT count(*) AS n FROM audit_events WHERE action = $1 AND target_id = $2`, [action, id]))[0].n);

test('every refusal: confirmation, role, other organisations, unknown ids, a live catalog\'s restore', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const other = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);

  expect(expectError(await del(admin.api_key, w.warehouse_id), 400, 'confirmation_required').confirm_with).toBe(w.name);
  expect(expectError(await del(admin.api_key, w.warehouse_id, { confirm: `${w.name}x` }), 400, 'confirmation_required').confirm_with).toBe(w.name);
  expect((await del(admin.api_key, w.warehouse_id, { confirm: 5 })).status).toBe(400);
  expect((await del(admin.api_key, w.warehouse_id, [w.name])).status).toBe(400);
  expectError(await del(member.api_key, w.warehouse_id, { confirm: w.name }), 403, 'forbidden');
  expectError(await del(other.admin.api_key, w.warehouse_id, { confirm: w.name }), 404, 'warehouse_not_found');
  expectError(await del(admin.api_key, 'no_such_catalog', { confirm: 'no_such_catalog' }), 404, 'warehouse_not_found');
  expectError(await restore(admin.api_key, w.warehouse_id), 409, 'not_deleted');
  expectError(await restore(admin.api_key, 'no_such_catalog'), 404, 'warehouse_not_found');
  // Nothing happened.
  expect((await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key))).status).toBe(200);
  expect(await auditCount('warehouse.delete', w.warehouse_id)).toBe(0);
});

test('20 concurrent deletes: one effect; every credential refused right after the 202; restore within the grace brings it all back', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const other = await newOrgWithAdmin();
  const c = await catalogWithRows(admin.api_key, (await newProject(admin.api_key)).project_id);
  const { w } = c;
  await gateway().put(`/v1/warehouses/${w.warehouse_id}/grants/${member.principal_id}`).set(bearer(admin.api_key)).send({ level: 'write' }).expect(200);
  await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: w.name }).expect(200);
  expect(await readStatus(c.session, w.bucket, c.dataKey)).toBe(200);
  expect((await fetch(`${stack().s3_url}/${w.bucket}/${c.dataKey}`)).status).toBe(200);

  // 20 at once: one 202, the rest 409 delete_in_progress with Retry-After.
  const answers = await Promise.all(Array.from({ length: 20 }, () => del(admin.api_key, w.warehouse_id, { confirm: w.name })));
  const accepted = answers.filter((r) => r.status === 202);
  expect(accepted).toHaveLength(1);
  for (const r of answers.filter((x) => x.status !== 202)) {
    expect(expectError(r, 409, 'delete_in_progress').retry_after_seconds).toBe(5);
    expect(r.headers['retry-after']).toBe('5');
  }
  const gone = accepted[0].body;
  expect(gone).toMatchObject({
    status: 'deleting', warehouse_id: w.warehouse_id, name: w.name, project_id: w.project_id,
    grants_removed: 1, tables_dropped: null, storage: null, storage_complete: null, poll: `/v1/warehouses/${w.warehouse_id}`,
  });
  expect(gone.usage_samples_removed).toEqual(expect.any(Number));
  expect(gone).toHaveProperty('bytes_at_deletion');
  expect(gone).toHaveProperty('measured_at');
  expect(gone.note).toEqual(expect.any(String));
  expect(Date.parse(gone.restorable_until) - Date.now()).toBeLessThanOrEqual(10_000);

  // Right after the 202: the catalog credential, its token, the vended session and anonymous reads are refused.
  expect(await exchangeStatus(c.credential)).toBe(401);
  expect((await fetch(`${stack().catalog_url}/v1/${w.warehouse_id}/namespaces`, { headers: bearer(c.catalogToken) })).status).toBe(401);
  expect(await readStatus(c.session, w.bucket, c.dataKey)).toBe(403);
  expect((await fetch(`${stack().s3_url}/${w.bucket}/${c.dataKey}`)).status).toBe(403);

  // One audit, one teardown job; gone from every view; the tombstone at its id; its name held.
  expect(await auditCount('warehouse.delete', w.warehouse_id)).toBe(1);
  const queue = new Queue(QUEUES.teardown, { connection: queueConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), prefix: queuePrefix(stack().redis_prefix) });
  try {
    expect(await (await queue.getJob(teardownJobId(w.warehouse_id)))?.getState()).toBe('delayed');
    expect(await queue.getJobCounts('delayed', 'waiting', 'active')).toMatchObject({ delayed: expect.any(Number) });
  } finally {
    await queue.close();
  }
  const listed = await gateway().get('/v1/warehouses').set(bearer(admin.api_key));
  expect(listed.body.warehouses.map((x: { warehouse_id: string }) => x.warehouse_id)).not.toContain(w.warehouse_id);
  const tomb = expectError(await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(member.api_key)), 404, 'warehouse_deleting');
  expect(tomb).toMatchObject({ state: 'deleting', grants_removed: 1, tables_dropped: null, completed_at: null, storage: { step: 'queued' }, storage_complete: null, tables_refused: null, teardown_error: null });
  expect(tomb.requested_at).toBe(gone.requested_at);
  expectError(await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(other.admin.api_key)), 404, 'warehouse_not_found');
  const reserved = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: w.project_id, name: w.name });
  expectError(reserved, 409, 'name_reserved_until_teardown');
  expect(reserved.headers['retry-after']).toBe('5');

  // Restore: not by another organisation's admin (404) nor a member (403); by an admin, once.
  expectError(await restore(other.admin.api_key, w.warehouse_id), 404, 'warehouse_not_found');
  expectError(await restore(member.api_key, w.warehouse_id), 403, 'forbidden');
  const back = await restore(admin.api_key, w.warehouse_id);
  expect(back.status).toBe(200);
  expect(back.body).toMatchObject({ warehouse_id: w.warehouse_id, name: w.name, status: 'ready', restored: true, grants_restored: 1, public: false });
  expect(back.body.catalog_credential.client_id).not.toBe(c.credential.client_id);
  expect(back.body.previous_client_ids).toContain(c.credential.client_id);
  expectError(await restore(admin.api_key, w.warehouse_id), 409, 'not_deleted');
  expect(await exchangeStatus(c.credential)).toBe(401);

  // Every row, through iceberg-js with the new credential, and icebird; the grant is back.
  const fresh = await token(back.body.catalog_credential.client_id, back.body.catalog_credential.client_secret);
  const loaded = await icebergClient(w.warehouse_id, fresh).loadTable({ namespace: ['events'], name: 'clicks' });
  expect(BigInt(loaded['current-snapshot-id']!)).toBe(c.snapshotId);
  const rows = await readWithIcebird(stack().s3_url, w.bucket, loaded as never);
  expect(rows.map((r: any) => [Number(r.id), r.msg]).sort()).toEqual([[1, 'one'], [2, 'two']]);
  const grants = await gateway().get(`/v1/warehouses/${w.warehouse_id}/grants`).set(bearer(admin.api_key));
  expect(grants.body).toEqual(expect.arrayContaining([expect.objectContaining({ principal_id: member.principal_id, level: 'write' })]));
  const session = await gateway().post('/v1/credentials').set(bearer(member.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'events', name: 'clicks' });
  expect(session.status).toBe(200);
  const s = session.body.credentials;
  const s3 = new S3Client({ endpoint: session.body.endpoint, region: session.body.region, forcePathStyle: true, maxAttempts: 1, credentials: { accessKeyId: s.access_key_id, secretAccessKey: s.secret_access_key, sessionToken: s.session_token } });
  expect(await readStatus(s3, w.bucket, c.dataKey)).toBe(200);
  // The session vended before the deletion stays refused (it had not expired: sessions last 900 s).
  expect(await readStatus(c.session, w.bucket, c.dataKey)).toBe(403);
  expect(await auditCount('warehouse.restore', w.warehouse_id)).toBe(1);

  // The restored catalog's teardown was called off: past the grace period it is still here.
  await new Promise((r) => setTimeout(r, 11_000));
  expect((await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key))).status).toBe(200);
  expect(await adminStorage().bucketExists(w.bucket)).toBe(true);
}, 90_000);

test('20 concurrent restores: one restore (one 200, one new pair that works, one audit), the rest 409; a restore that died is taken over once its lease lapses', async () => {
  const { admin } = await newOrgWithAdmin();
  const other = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const before = (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id, level: 'write' }).set(bearer(admin.api_key)).expect(200)).body.catalog_credential;
  await del(admin.api_key, w.warehouse_id, { confirm: w.name }).expect(202);
  // Held restorable past the stack's 10 s grace, whatever the machine's load.
  await sql(`UPDATE warehouses SET teardown_after = now() + interval '10 minutes' WHERE id = $1`, [w.warehouse_id]);
  const minted = async () => (await sql(`SELECT client_id, revoked_at FROM catalog_credentials WHERE warehouse_id = $1 AND client_id <> ALL($2) ORDER BY client_id`,
    [w.warehouse_id, [before.client_id, `${before.client_id}-ro`]]));

  const answers = await Promise.all(Array.from({ length: 20 }, () => restore(admin.api_key, w.warehouse_id)));
  const ok = answers.filter((r) => r.status === 200);
  expect(ok).toHaveLength(1);
  // The others: while the winner holds its claim, not_restorable with Retry-After; once it is done, not_deleted.
  for (const r of answers.filter((x) => x.status !== 200)) {
    if (r.body?.error?.code === 'not_restorable') {
      expect(expectError(r, 409, 'not_restorable')).toMatchObject({ warehouse_id: w.warehouse_id, state: 'restoring', retry_after_seconds: 5 });
      expect(r.headers['retry-after']).toBe('5');
    } else {
      expect(expectError(r, 409, 'not_deleted').warehouse_id).toBe(w.warehouse_id);
    }
  }
  const pair = ok[0].body;
  expect(await auditCount('warehouse.restore', w.warehouse_id)).toBe(1);
  // One pair minted, live; it works at the catalog's token exchange and the old one does not.
  expect(await minted()).toEqual([{ client_id: pair.catalog_credential.client_id, revoked_at: null }, { client_id: pair.catalog_credential_ro.client_id, revoked_at: null }]);
  expect(await exchangeStatus(pair.catalog_credential)).toBe(200);
  expect(await exchangeStatus(pair.catalog_credential_ro)).toBe(200);
  expect(await exchangeStatus(before)).toBe(401);
  expectError(await restore(admin.api_key, w.warehouse_id), 409, 'not_deleted');

  // A restore that died mid-way (its claim still on the row): refused while its lease lasts, taken over once it lapsed.
  await del(admin.api_key, w.warehouse_id, { confirm: w.name }).expect(202);
  await sql(`UPDATE warehouses SET teardown_after = now() + interval '10 minutes', teardown_step = 'restoring', restore_claim = 'died', restore_lease_until = now() + interval '1 minute' WHERE id = $1`, [w.warehouse_id]);
  const held = await restore(admin.api_key, w.warehouse_id);
  expect(expectError(held, 409, 'not_restorable')).toMatchObject({ state: 'restoring', retry_after_seconds: 5 });
  expectError(await restore(other.admin.api_key, w.warehouse_id), 404, 'warehouse_not_found');
  await sql(`UPDATE warehouses SET restore_lease_until = now() - interval '1 second' WHERE id = $1`, [w.warehouse_id]);
  const taken = await restore(admin.api_key, w.warehouse_id);
  expect(taken.status).toBe(200);
  expect(await exchangeStatus(taken.body.catalog_credential)).toBe(200);
  expect(await exchangeStatus(pair.catalog_credential)).toBe(401);
  expect(await sql(`SELECT status, teardown_step, restore_claim, restore_lease_until FROM warehouses WHERE id = $1`, [w.warehouse_id]))
    .toEqual([{ status: 'ready', teardown_step: null, restore_claim: null, restore_lease_until: null }]);
  expect(await auditCount('warehouse.restore', w.warehouse_id)).toBe(2);
}, 90_000);

test('sinks of a catalog being deleted take nothing (404 sink_not_found, send and device routes) and are out of the sink routes; restore brings them back', async () => {
  const { admin, w } = await sinkSetup();
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'views', schema: sinkTestSchema }).expect(201);
  const newSink = async (table: string) => (await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: `s${uniq()}`, table, warehouse: w.name }).expect(201)).body;
  const sink = await newSink('events.clicks');
  // A second sink deleted on its own before the catalog: restore does not bring that one back.
  const dropped = await newSink('events.views');
  await gateway().delete(`/v1/sinks/${dropped.sink_id}`).set(bearer(admin.api_key)).expect(202);
  const device = (await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key)).send({}).expect(201)).body;
  const devicePath = new URL(device.device_url).pathname;
  const send = (s: { sink_id: string; send_key: string }, batchId: string) => request(stack().base_url).post(`/v1/sinks/${s.sink_id}`)
    .set(bearer(s.send_key)).set('Content-Type', 'application/json').set('Idempotency-Key', batchId).send('[{"id": 1}]');
  const post = (body: string) => request(stack().ingest_url).post(devicePath).set('Content-Type', 'application/json').send(body);
  const stored = async () => ((await (await blobReader(w.warehouse_id)).send(new ListObjectsV2Command({ Bucket: w.blob_bucket, Prefix: `_sink/${sink.sink_id}/` }))).Contents ?? [])
    .map((o) => o.Key!.slice(`_sink/${sink.sink_id}/`.length)).sort();
  expect((await send(sink, 'before')).status).toBe(202);
  const first = await post('{"id": 2}');
  expect(first.status).toBe(202);

  await del(admin.api_key, w.warehouse_id, { confirm: w.name }).expect(202);

  // From the 202 on: both routes refuse with the spec's code for a sink that takes nothing, saying why; nothing is written.
  for (const refused of [await send(sink, 'while-deleting'), await post('{"id": 3}')]) {
    const err = expectError(refused, 404, 'sink_not_found');
    expect(err).toMatchObject({ catalog_state: 'deleting' });
    expect(err.message).toBe(`the catalog of sink ${sink.sink_id} is being deleted; its sinks take nothing unless the catalog is restored`);
  }
  // A sink deleted on its own says so first.
  expect(expectError(await send(dropped, 'while-deleting'), 404, 'sink_not_found').message).toBe(`sink ${dropped.sink_id} was deleted`);
  expect((await sql(`SELECT batch_id FROM sink_batches WHERE sink_id = $1 ORDER BY batch_id`, [sink.sink_id])).map((r) => r.batch_id)).toEqual(['before', first.body.batch_id]);
  // The sink routes see no sink of a catalog that is gone, deleted ones included.
  for (const q of [{}, { include_deleted: 'true' }]) {
    const listed = await gateway().get('/v1/sinks').query(q).set(bearer(admin.api_key));
    expect([listed.status, listed.body.count, listed.body.sinks]).toEqual([200, 0, []]);
  }
  expectError(await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(admin.api_key)), 404, 'sink_not_found');
  expectError(await gateway().get(`/v1/sinks/${sink.name}`).set(bearer(admin.api_key)), 404, 'sink_not_found');

  // Restore: the sink takes batches again on both routes (the refused ones were never recorded, so they are new); the deleted one stays deleted.
  await restore(admin.api_key, w.warehouse_id).expect(200);
  expect(await stored()).toEqual([`${first.body.batch_id}.ndjson`, 'before.ndjson'].sort());
  const again = await send(sink, 'while-deleting');
  expect([again.status, again.body.duplicate]).toEqual([202, undefined]);
  const posted = await post('{"id": 3}');
  expect([posted.status, posted.body.duplicate]).toEqual([202, undefined]);
  expect(expectError(await send(dropped, 'after'), 404, 'sink_not_found').message).toBe(`sink ${dropped.sink_id} was deleted`);
  const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(admin.api_key));
  expect([got.status, got.body.state, got.body.lag.batches_waiting]).toEqual([200, 'active', 4]);
  const listed = await gateway().get('/v1/sinks').query({ warehouse: w.warehouse_id, include_deleted: 'true' }).set(bearer(admin.api_key));
  expect(listed.body.sinks.map((x: { sink_id: string; state: string }) => [x.sink_id, x.state])).toEqual([[sink.sink_id, 'active'], [dropped.sink_id, 'deleted']]);
}, 60_000);

test('restore: not_restorable after the grace period, already_exists when the name was taken, limit_exceeded over the count', async () => {
  const { admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const a = await newWarehouse(admin.api_key, project.project_id);
  const b = await newWarehouse(admin.api_key, project.project_id);
  await del(admin.api_key, a.warehouse_id, { confirm: a.name }).expect(202);
  await del(admin.api_key, b.warehouse_id, { confirm: b.name }).expect(202);
  // The stack's grace is 10 s, less than the steps below may take on a loaded machine: a is held restorable, b for 30 s.
  await sql(`UPDATE warehouses SET teardown_after = now() + interval '10 minutes' WHERE id = $1`, [a.warehouse_id]);
  await sql(`UPDATE warehouses SET teardown_after = now() + interval '30 seconds' WHERE id = $1`, [b.warehouse_id]);

  // A live catalog holds the name now (the API holds a deleting catalog's name, so the test renames one in).
  const c = await newWarehouse(admin.api_key, project.project_id);
  await sql(`UPDATE warehouses SET name = $1 WHERE id = $2`, [a.name, c.warehouse_id]);
  expect(expectError(await restore(admin.api_key, a.warehouse_id), 409, 'already_exists').warehouse_id).toBe(c.warehouse_id);

  // The project is at its 10 catalogs (c and nine more).
  for (let i = 0; i < 9; i++) {
    await sql(`INSERT INTO warehouses (id, name, project_id, org_id, table_bucket, blob_bucket, status, storage_uid, storage_access_key, storage_secret_key, storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name)
               SELECT $1, $1, project_id, org_id, $1, $1 || '-b', 'ready', 'u', '', '', 'u-ro', '', '', 'r' FROM warehouses WHERE id = $2`, [`filler_${uniq()}${i}`, c.warehouse_id]);
  }
  const over = expectError(await restore(admin.api_key, b.warehouse_id), 409, 'limit_exceeded');
  expect(over).toMatchObject({ limit_value: 10, current: 10 });

  // Past the grace period (teardown begins): not_restorable, and then the tombstone of a deleted catalog.
  await until('teardown of b', async () => ((await gateway().get(`/v1/warehouses/${b.warehouse_id}`).set(bearer(admin.api_key))).body?.error?.code === 'warehouse_deleted' ? true : null), 90, 500);
  expectError(await restore(admin.api_key, b.warehouse_id), 409, 'not_restorable');
  expectError(await del(admin.api_key, b.warehouse_id, { confirm: b.name }), 404, 'warehouse_deleted');
}, 150_000);

test('after the grace period nothing of it is left on the store; the tombstone holds the counts; the name is free again', async () => {
  const { admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const c = await catalogWithRows(admin.api_key, project.project_id);
  const { w } = c;
  const store = adminStorage();
  // A sink with data waiting in the blob bucket, an uploader identity, a public policy.
  const sink = await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: `s${uniq()}`, table: 'events.clicks', warehouse: w.name });
  expect(sink.status).toBe(201);
  const sent = await fetch(`${stack().base_url}/v1/sinks/${sink.body.sink_id}`, {
    method: 'POST', headers: { ...bearer(sink.body.send_key), 'Content-Type': 'application/json', 'Idempotency-Key': 'b-1' }, body: JSON.stringify([{ id: 3, msg: 'three' }]),
  });
  expect(sent.status).toBe(202);
  const uploader = `u-${w.warehouse_id}-${uniq()}`;
  const up = await store.createUploader({ uid: uploader, displayName: 'test uploader', bucket: w.blob_bucket, prefix: 'in/', list: false });
  await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: w.name }).expect(200);
  const [keys] = await sql(`SELECT storage_uid, storage_ro_uid, role_name FROM warehouses WHERE id = $1`, [w.warehouse_id]);

  const gone = await del(admin.api_key, w.warehouse_id, { confirm: w.name });
  expect(gone.status).toBe(202);
  // The uploader is suspended at once too.
  expect(await readStatus(store.s3As(up), w.blob_bucket, 'in/x')).toBe(403);

  const tomb = await until('teardown', async () => {
    const r = await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key));
    return r.body?.error?.code === 'warehouse_deleted' ? expectError(r, 404, 'warehouse_deleted') : null;
  }, 60, 500);
  expect(tomb).toMatchObject({
    state: 'deleted', tables_dropped: 1, tables_refused: 0, grants_removed: 0, storage_complete: true, teardown_error: null,
    requested_at: gone.body.requested_at, storage: expect.objectContaining({ step: 'done', uploaders: 1, role: 'deleted' }),
  });
  expect(tomb.completed_at).toEqual(expect.any(String));
  expect(tomb.usage_samples_removed).toEqual(expect.any(Number));
  expect(tomb.storage).toMatchObject({ identity: { user: 'deleted' }, identity_ro: { user: 'deleted' }, table_bucket: { removed: true }, blob_bucket: { removed: true } });

  // Nothing left: buckets, users (their keys with them), role and its policy.
  expect(await store.bucketExists(w.bucket)).toBe(false);
  expect(await store.bucketExists(w.blob_bucket)).toBe(false);
  for (const uid of [keys.storage_uid, keys.storage_ro_uid, uploader]) expect(await store.admin.call('GET', 'user', { uid }, 'get identity')).toBeNull();
  expect(await store.listIdentities(`u-${w.warehouse_id}-`)).toEqual([]);
  const role = await store.iam.send(new GetRoleCommand({ RoleName: keys.role_name })).then(() => 'present', (e) => e.$metadata?.httpStatusCode);
  expect(role).toBe(404);
  expect(await exchangeStatus(c.credential)).toBe(401);

  const [complete] = await sql(`SELECT data FROM audit_events WHERE action = 'warehouse.delete_complete' AND target_id = $1`, [w.warehouse_id]);
  expect(complete.data).toMatchObject({ tables_dropped: 1, storage_complete: true, storage: expect.objectContaining({ table_bucket: { removed: true, objectsDeleted: expect.any(Number) } }) });
  expect((await sql(`SELECT state FROM sinks WHERE id = $1`, [sink.body.sink_id]))[0].state).toBe('deleted');
  expect(await sql(`SELECT 1 FROM catalog_tables WHERE warehouse_id = $1`, [w.warehouse_id])).toEqual([]);

  // The name: a bucket of that name back on the store is a leftover; once it is gone, the name is free.
  await store.ensureBucket(w.bucket);
  expectError(await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name: w.name }), 409, 'bucket_leftover_from_deletion');
  await store.removeBucket(w.bucket);
  const again = await newWarehouse(admin.api_key, project.project_id, w.name);
  expect(again.bucket).toBe(w.bucket);
  expect(again.warehouse_id).not.toBe(w.warehouse_id);
}, 120_000);
