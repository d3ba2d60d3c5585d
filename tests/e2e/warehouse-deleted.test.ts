import { PutObjectCommand } from '@aws-sdk/client-s3';
import { Queue } from 'bullmq';
import { queueConnection, queuePrefix, QUEUES, restoreMeasureJobId } from '@floe/queues';
import { until } from '../support/poll';
import { adminStorage } from '../support/store';
import { appendRows } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { sql, stack } from './helpers';
import { sinkTestSchema } from './sink-helpers';

// Deleted catalogs seen and measured: the tombstone's `bytes_at_deletion` is
// what both buckets held at the deletion (not the last hourly sample);
// GET /v1/warehouses?include_deleted=true lists the caller's catalogs that
// restore would still take, with their tombstone and `restorable_until` (the
// grace rule restore itself reads); who sees them; a restored catalog is
// measured at once, and its new credential pair has the spec's form.
// The e2e stack's grace is 10 s, its first sample 4 s after creation and its
// sweep every 20 s (global-setup.ts).

const TWENTY_MB = 20 * 1024 * 1024;
type Row = Record<string, any>;

const list = (key: string, q: Record<string, string> = {}) => gateway().get('/v1/warehouses').query(q).set(bearer(key));
const rowsOf = async (key: string, q: Record<string, string> = {}): Promise<Row[]> => {
  const res = await list(key, q);
  expect(res.status).toBe(200);
  expect(res.body.count).toBe(res.body.warehouses.length);
  return res.body.warehouses;
};
const idsOf = (rows: Row[]) => rows.map((r) => r.warehouse_id);
const teardownAfter = async (id: string) => ((await sql(`SELECT teardown_after FROM warehouses WHERE id = $1`, [id]))[0].teardown_after as Date).toISOString();
const agentWith = async (adminKey: string, orgId: string, grants: Array<{ warehouse_id: string; level: string }>) => {
  const res = await gateway().post(`/v1/orgs/${orgId}/agents`).set(bearer(adminKey)).send({ name: `bot-${uniq()}`, grants });
  expect(res.status).toBe(201);
  return res.body.api_key as string;
};

test('deleted with 20 MB: bytes_at_deletion is both buckets\' bytes then; include_deleted lists it to those who could see it; restored, it is measured at once with a t-<uuid> pair', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const other = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const w = await newWarehouse(admin.api_key, project.project_id, `gone_${uniq()}`);
  const reader = await agentWith(admin.api_key, org.org_id, [{ warehouse_id: w.warehouse_id, level: 'read' }]);
  const ungranted = await agentWith(admin.api_key, org.org_id, []);

  // Its first sample (0 bytes) is taken before any data: the last sample is stale from then on.
  const first = await until('the creation sample', async () => {
    const s = (await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key))).body.stored;
    return s?.source === 'creation' ? s : null;
  }, 30, 300);
  expect(first).toMatchObject({ bytes: 0, unmetered: false });

  // Real data in both buckets: rows appended the way an engine does, and 20 MB in the blob bucket.
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'events', name: 'clicks', schema: sinkTestSchema }).expect(201);
  const conn = await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id, level: 'write' }).set(bearer(admin.api_key)).expect(200);
  const before = conn.body.catalog_credential as { client_id: string; client_secret: string };
  const catalogToken = await token(before.client_id, before.client_secret);
  await appendRows({ warehouseId: w.warehouse_id, bucket: w.bucket, token: catalogToken, namespace: 'events', table: 'clicks' }, [{ id: 1n, msg: 'one' }, { id: 2n, msg: 'two' }]);
  const store = adminStorage();
  await store.s3.send(new PutObjectCommand({ Bucket: w.blob_bucket, Key: 'exports/big.bin', Body: Buffer.alloc(TWENTY_MB, 7) }));
  const [table, blob] = [await store.measureByListing(w.bucket), await store.measureByListing(w.blob_bucket)];
  const measured = table.bytes + blob.bytes;
  expect(table.bytes).toBeGreaterThan(0);
  expect(blob.bytes).toBe(TWENTY_MB);

  // Delete: the tombstone holds what the buckets held at the deletion, measured then.
  const asked = Date.now();
  const del = await gateway().delete(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key)).send({ confirm: w.name });
  expect(del.status).toBe(202);
  // Held restorable past the stack's 10 s grace, whatever the machine's load.
  await sql(`UPDATE warehouses SET teardown_after = now() + interval '10 minutes' WHERE id = $1`, [w.warehouse_id]);
  const gone = del.body;
  expect(gone).toMatchObject({ status: 'deleting', warehouse_id: w.warehouse_id, bytes_at_deletion: measured });
  expect(gone.bytes_at_deletion).toBeGreaterThan(TWENTY_MB);
  expect(Date.parse(gone.measured_at)).toBeGreaterThanOrEqual(asked - 1000);
  expect(Date.parse(gone.measured_at)).toBeLessThanOrEqual(Date.parse(gone.requested_at) + 1000);
  const audit = await sql(`SELECT data FROM audit_events WHERE action = 'warehouse.delete' AND target_id = $1`, [w.warehouse_id]);
  expect(audit.map((a) => a.data.bytes_at_deletion)).toEqual([measured]);
  const tomb = expectError(await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key)), 404, 'warehouse_deleting');
  expect(tomb).toMatchObject({ state: 'deleting', bytes_at_deletion: measured, measured_at: gone.measured_at, restorable_until: await teardownAfter(w.warehouse_id) });

  // Without the flag, nothing changes: it is in no list.
  for (const q of [{}, { include_deleted: 'false' }, { project: project.project_id }] as Array<Record<string, string>>) {
    expect(idsOf(await rowsOf(admin.api_key, q))).not.toContain(w.warehouse_id);
  }

  // With it: the admin sees it after the live ones, with its tombstone and until when restore takes it (the row's teardown_after).
  for (const q of [{ include_deleted: 'true' }, { include_deleted: 'true', project: project.project_id }] as Array<Record<string, string>>) {
    const rows = await rowsOf(admin.api_key, q);
    const mine = rows.filter((r) => r.warehouse_id === w.warehouse_id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      warehouse_id: w.warehouse_id, name: w.name, project_id: project.project_id, project: project.name, bucket: w.bucket, blob_bucket: w.blob_bucket,
      status: 'deleting', state: 'deleting', requested_at: gone.requested_at, bytes_at_deletion: measured, measured_at: gone.measured_at,
      grants_removed: 1, usage_samples_removed: gone.usage_samples_removed, tables_dropped: null, completed_at: null, storage: { step: 'queued' },
      storage_complete: null, teardown_error: null, restorable_until: await teardownAfter(w.warehouse_id), restore: `/v1/warehouses/${w.warehouse_id}/restore`,
    });
    expect(rows[rows.length - 1].warehouse_id).toBe(w.warehouse_id);
  }
  // Another project narrows it out.
  const elsewhere = await newProject(admin.api_key);
  expect(idsOf(await rowsOf(admin.api_key, { include_deleted: 'true', project: elsewhere.project_id }))).toEqual([]);

  // Who else: a person who is a member (read by membership) sees it; a member token sees it because it was granted before the deletion
  // (its tombstone too, and restoring is 403 for it); a token never granted does not; another organisation's admin sees nothing.
  expect(idsOf(await rowsOf(member.api_key, { include_deleted: 'true' }))).toContain(w.warehouse_id);
  expect(idsOf(await rowsOf(reader, { include_deleted: 'true' }))).toEqual([w.warehouse_id]);
  expectError(await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(reader)), 404, 'warehouse_deleting');
  expectError(await gateway().post(`/v1/warehouses/${w.warehouse_id}/restore`).set(bearer(reader)).send({}), 403, 'forbidden');
  expect(await rowsOf(ungranted, { include_deleted: 'true' })).toEqual([]);
  expectError(await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(ungranted)), 404, 'warehouse_not_found');
  expect(idsOf(await rowsOf(other.admin.api_key, { include_deleted: 'true' }))).not.toContain(w.warehouse_id);
  expectError(await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(other.admin.api_key)), 404, 'warehouse_not_found');

  // Restore: a new pair of the spec's form (t-<uuid>, and the same with -ro), and the first usage sample queued at once.
  const back = await gateway().post(`/v1/warehouses/${w.warehouse_id}/restore`).set(bearer(admin.api_key)).send({});
  expect(back.status).toBe(200);
  const rw = back.body.catalog_credential.client_id as string;
  expect(rw).toMatch(/^t-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(back.body.catalog_credential_ro.client_id).toBe(`${rw}-ro`);
  expect(rw).not.toBe(before.client_id);
  expect(back.body.previous_client_ids.sort()).toEqual([before.client_id, `${before.client_id}-ro`].sort());
  expect(back.body.storage_measurement).toEqual({ status: 'scheduled', in_seconds: 0, then: 'hourly' });

  // Measured within seconds (the sweep comes every 20 s), by the restore's own job: both buckets, as at the deletion.
  const restoredAt = Date.parse(back.body.restored_at);
  const stored = await until('the restored catalog\'s first sample', async () => {
    const s = (await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key))).body.stored;
    return s && !s.unmetered ? s : null;
  }, 15, 300);
  expect(stored).toMatchObject({ unmetered: false, measuring: false, bytes: measured, table_bytes: table.bytes, blob_bytes: TWENTY_MB, complete: true });
  expect(Date.parse(stored.measured_at)).toBeGreaterThanOrEqual(restoredAt - 1000);
  const queue = new Queue(QUEUES.metering, { connection: queueConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), prefix: queuePrefix(stack().redis_prefix) });
  try {
    const job = await queue.getJob(restoreMeasureJobId(w.warehouse_id, restoredAt));
    expect(job?.data).toEqual({ warehouse_id: w.warehouse_id, source: 'creation', restored_at: back.body.restored_at });
    await until('the restore\'s measure job done', async () => ((await job!.getState()) === 'completed' ? true : null), 15, 300);
  } finally {
    await queue.close();
  }

  // Back in the list once, live; no deleted row of it is left.
  const after = (await rowsOf(admin.api_key, { include_deleted: 'true' })).filter((r) => r.warehouse_id === w.warehouse_id);
  expect(after).toEqual([expect.objectContaining({ status: 'ready', my_level: 'write' })]);
  expect(after[0]).not.toHaveProperty('state');
}, 120_000);

test('a catalog past its grace period is listed no more (restore would refuse it), while its tombstone stays at its id with restorable_until null', async () => {
  const { admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const kept = await newWarehouse(admin.api_key, project.project_id);
  const ended = await newWarehouse(admin.api_key, project.project_id);
  for (const w of [kept, ended]) await gateway().delete(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key)).send({ confirm: w.name }).expect(202);
  await sql(`UPDATE warehouses SET teardown_after = now() + interval '10 minutes' WHERE id = $1`, [kept.warehouse_id]);
  // The grace ends for the other one (teardown may begin at once).
  await sql(`UPDATE warehouses SET teardown_after = now() - interval '1 second' WHERE id = $1`, [ended.warehouse_id]);

  const rows = await rowsOf(admin.api_key, { include_deleted: 'true' });
  expect(rows.filter((r) => r.status === 'deleting').map((r) => r.warehouse_id)).toEqual([kept.warehouse_id]);
  const tomb = (await gateway().get(`/v1/warehouses/${ended.warehouse_id}`).set(bearer(admin.api_key))).body.error;
  expect(['warehouse_deleting', 'warehouse_deleted']).toContain(tomb.code);
  expect(tomb.restorable_until).toBeNull();
  expectError(await gateway().post(`/v1/warehouses/${ended.warehouse_id}/restore`).set(bearer(admin.api_key)).send({}), 409, 'not_restorable');
  // Two deleted catalogs listed newest deletion first.
  const third = await newWarehouse(admin.api_key, project.project_id);
  await gateway().delete(`/v1/warehouses/${third.warehouse_id}`).set(bearer(admin.api_key)).send({ confirm: third.name }).expect(202);
  await sql(`UPDATE warehouses SET teardown_after = now() + interval '10 minutes' WHERE id = $1`, [third.warehouse_id]);
  expect((await rowsOf(admin.api_key, { include_deleted: 'true' })).filter((r) => r.status === 'deleting').map((r) => r.warehouse_id))
    .toEqual([third.warehouse_id, kept.warehouse_id]);
}, 60_000);
