import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { toLoadTableResult } from '@floe/catalog-client';
import { parseJson } from '@floe/iceberg';
import { accessOf } from '@floe/catalog-client';
import { removeOrphans } from '../../services/maintenance-worker/src/runs/remove-orphans';
import { createLogger } from '@floe/http';
import { readWithIcebird } from '../support/icebird';
import { until } from '../support/poll';
import { adminStorage } from '../support/store';
import { appendRows, icebergClient, keyOf, vendedS3, type TableRef } from './append-helpers';
import { catalog, token } from './catalog-helpers';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';
import { sql, stack } from './helpers';
import { sinkTestSchema } from './sink-helpers';

// Issue 28, first part: table maintenance by the maintenance worker —
// snapshot expiry, metadata clean-up and orphan removal — asked for through
// POST /v1/table/maintenance (a run, or a dry run that changes nothing) and
// explained by GET /v1/table/maintenance (health against the rules, and each
// run with its trigger, before and after, what it freed and why). Rows are
// read back with icebird before and after.

let admin: { api_key: string; principal_id: string };
let org: { org_id: string };
let w: { warehouse_id: string; name: string; bucket: string };
let t: TableRef;

const path = '/v1/table/maintenance';
const ask = (key: string, body: Record<string, unknown>) => gateway().post(path).set(bearer(key)).send({ warehouse: w.warehouse_id, namespace: 'mt', ...body });
const health = (key: string, name: string) => gateway().get(path).query({ warehouse: w.warehouse_id, namespace: 'mt', name }).set(bearer(key));

async function newTable(name: string): Promise<TableRef> {
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'mt', name, schema: sinkTestSchema }).expect(201);
  return { ...t, table: name };
}

/** Every object under the table's location, with its ETag: what a dry run must leave as it was. */
async function objectsOf(ref: TableRef): Promise<string[]> {
  const { location } = await vendedS3(ref);
  const out = await adminStorage().s3.send(new ListObjectsV2Command({ Bucket: w.bucket, Prefix: keyOf(w.bucket, location) }));
  return (out.Contents ?? []).map((o) => `${o.Key} ${o.ETag}`).sort();
}

async function rowsOf(ref: TableRef): Promise<{ count: number; sum: number }> {
  const loaded = await icebergClient(ref.warehouseId, ref.token).loadTable({ namespace: [ref.namespace], name: ref.table });
  const rows = await readWithIcebird(stack().s3_url, w.bucket, loaded as never);
  return { count: rows.length, sum: rows.reduce((n: number, r: any) => n + Number(r.id), 0) };
}

async function finishedRun(ref: TableRef, kind: string, after: number) {
  return until(`a finished ${kind} run`, async () => {
    const runs = (await health(admin.api_key, ref.table)).body.runs as Array<Record<string, any>>;
    const run = runs.find((r) => r.kind === kind && r.status !== 'running' && Date.parse(r.started_at) >= after);
    return run ?? null;
  }, 30, 250);
}

/** Whether a file of the table is in the store, asked with the table's own vended session (what wrote it). */
const exists = async (ref: TableRef, p: string) => {
  const { s3 } = await vendedS3(ref);
  return s3.send(new HeadObjectCommand({ Bucket: w.bucket, Key: keyOf(w.bucket, p) })).then(() => true, (e) => {
    if (e.$metadata?.httpStatusCode !== 404) throw e;
    return false;
  });
};

beforeAll(async () => {
  const o = await newOrgWithAdmin();
  admin = o.admin;
  org = o.org;
  w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const credential = (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id, level: 'write' }).set(bearer(admin.api_key)).expect(200)).body.catalog_credential;
  t = { warehouseId: w.warehouse_id, bucket: w.bucket, token: await token(credential.client_id, credential.client_secret), namespace: 'mt', table: '' };
}, 60_000);

test('the table\'s own retention: a dry run changes nothing; the run keeps the newest, the tagged one and every row, and removes what only expired snapshots reached', async () => {
  // Within the rules a commit judges (no run is queued by the appends), with the table's own
  // history.expire.* settings making 7 of the 12 snapshots expire when a run is asked for.
  const ref = await newTable('events');
  const ids: bigint[] = [];
  for (let i = 1; i <= 12; i++) ids.push((await appendRows(ref, [{ id: BigInt(i), msg: `m${i}` }])).snapshotId);
  // An old snapshot tagged: kept with its files, whatever its age or rank.
  await catalog().post(`/v1/${w.warehouse_id}/namespaces/mt/tables/events`).set(bearer(t.token))
    .send({ requirements: [], updates: [
      { action: 'set-snapshot-ref', 'ref-name': 'v1', type: 'tag', 'snapshot-id': Number(ids[1]) },
      { action: 'set-properties', updates: { 'history.expire.max-snapshot-age-ms': '1', 'history.expire.min-snapshots-to-keep': '4' } },
    ] }).expect(200);

  const h = await health(admin.api_key, 'events');
  expect(h.status).toBe(200);
  expect(h.body).toMatchObject({ table: 'mt.events', warehouse_id: w.warehouse_id, maintenance: { max_snapshots: 20, snapshot_retention_days: 7 } });
  expect(h.body.health).toMatchObject({ snapshots: 12, data_files: 12, manifests: 12, small_files: null });
  expect(h.body.health.due.map((d: { kind: string }) => d.kind)).not.toContain('expire_snapshots');
  const before = await rowsOf(ref);
  expect(before).toEqual({ count: 12, sum: 78 });
  const listed = await objectsOf(ref);
  const loadedBefore = (await vendedS3(ref)).metadata;
  const expiredLists = loadedBefore.snapshots.filter((s: any) => ids.slice(2, 8).map(Number).includes(Number(s['snapshot-id']))).map((s: any) => s['manifest-list']);
  const taggedList = loadedBefore.snapshots.find((s: any) => Number(s['snapshot-id']) === Number(ids[1]))['manifest-list'];

  // The dry run: what would go, and nothing changed.
  const dry = await ask(admin.api_key, { name: 'events', kinds: ['expire_snapshots'], dry_run: true });
  expect(dry.status).toBe(200);
  expect(dry.body).toMatchObject({ dry_run: true, table: 'mt.events' });
  const would = dry.body.kinds[0];
  expect(would).toMatchObject({ kind: 'expire_snapshots', nothing: false });
  expect(would.would.expire_snapshot_ids.sort()).toEqual([ids[0], ...ids.slice(2, 8)].map(String).sort());
  expect(would.would.retained).toEqual(expect.arrayContaining([{ snapshot_id: String(ids[1]), reason: 'tag v1' }]));
  expect(would.would.files_to_remove).toMatchObject({ count: 7, manifest_lists: 7, data_files: 0 });
  expect(await objectsOf(ref)).toEqual(listed);
  expect((await vendedS3(ref)).metadata.snapshots).toHaveLength(12);

  // The run.
  const started = Date.now() - 1000;
  const queued = await ask(admin.api_key, { name: 'events', kinds: ['expire_snapshots'] });
  expect(queued.status).toBe(202);
  expect(queued.body).toMatchObject({ queued: true, joined: false, kinds: ['expire_snapshots'], trigger: { type: 'manual' } });
  const run = await finishedRun(ref, 'expire_snapshots', started);
  expect(run).toMatchObject({
    status: 'done', trigger: { type: 'manual', detail: `asked by ${admin.principal_id}` }, requested_by: admin.principal_id,
    before: { snapshots: 12 }, after: { snapshots: 5 }, snapshot_id: null,
  });
  expect(run.reason).toMatch(/^7 of 12 snapshots expired .*; 7 files only they reached$/);
  expect(run.freed_bytes).toBeGreaterThan(0);
  const after = (await vendedS3(ref)).metadata;
  expect(after.snapshots).toHaveLength(5);
  expect(after.refs.v1).toMatchObject({ type: 'tag', 'snapshot-id': Number(ids[1]) });
  for (const p of expiredLists) expect(await exists(ref, p)).toBe(false);
  expect(await exists(ref, taggedList)).toBe(true);
  expect(await rowsOf(ref)).toEqual(before);
  const audit = await sql(`SELECT data FROM audit_events WHERE action = 'table.maintain' AND org_id = $1 AND data->>'run_id' = $2`, [org.org_id, run.run_id]);
  expect(audit).toEqual([{ data: expect.objectContaining({ kind: 'expire_snapshots', status: 'done', table: 'mt.events', trigger: { type: 'manual', detail: `asked by ${admin.principal_id}` } }) }]);

  // Nothing more to do: a second run is recorded skipped, with its reason.
  const again = Date.now() - 1000;
  await ask(admin.api_key, { name: 'events', kinds: ['expire_snapshots'] }).expect(202);
  expect(await finishedRun(ref, 'expire_snapshots', again)).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/^nothing to expire/) });
}, 90_000);

test('metadata clean-up: new tables get the retention properties; one without them gets them back', async () => {
  const ref = await newTable('props');
  const props = () => vendedS3(ref).then((x) => x.metadata.properties);
  expect(await props()).toMatchObject({ 'write.metadata.delete-after-commit.enabled': 'true', 'write.metadata.previous-versions-max': '20' });
  const started = Date.now() - 1000;
  await gateway().patch('/v1/table').set(bearer(admin.api_key))
    .send({ warehouse_id: w.warehouse_id, namespace: 'mt', name: 'props', remove: ['write.metadata.delete-after-commit.enabled', 'write.metadata.previous-versions-max'] }).expect(200);
  // The commit crosses the rule, so it queues the run itself; until that run starts, the health names the rule.
  const seen = (await health(admin.api_key, 'props')).body;
  if (!seen.runs.some((r: { kind: string; started_at: string }) => r.kind === 'clean_metadata' && Date.parse(r.started_at) >= started)) {
    expect(seen.health.due).toEqual(expect.arrayContaining([
      { kind: 'clean_metadata', rule: 'the table lacks write.metadata.delete-after-commit.enabled and write.metadata.previous-versions-max' },
    ]));
  }
  await ask(admin.api_key, { name: 'props', kinds: ['clean_metadata'] }).expect(202);
  const run = await until('the run that put them back', async () => {
    const runs = (await health(admin.api_key, 'props')).body.runs as Array<Record<string, any>>;
    return runs.find((r) => r.kind === 'clean_metadata' && r.status === 'done' && Date.parse(r.started_at) >= started) ?? null;
  }, 30, 250);
  expect(run).toMatchObject({ status: 'done', reason: 'set write.metadata.delete-after-commit.enabled and write.metadata.previous-versions-max' });
  expect(await props()).toMatchObject({ 'write.metadata.delete-after-commit.enabled': 'true', 'write.metadata.previous-versions-max': '20' });
}, 60_000);

test('orphans: a file no metadata names is removed once old enough, never a live one; younger than the age it waits', async () => {
  const ref = await newTable('orphans');
  await appendRows(ref, [{ id: 1n, msg: 'one' }]);
  const { location, s3 } = await vendedS3(ref);
  const orphan = `${location}/data/left-by-a-dead-writer.parquet`;
  await s3.send(new PutObjectCommand({ Bucket: w.bucket, Key: keyOf(w.bucket, orphan), Body: 'not committed' }));

  // With the stack's orphan age (3 days), the worker's run leaves it: unnamed but too new.
  const started = Date.now() - 1000;
  await ask(admin.api_key, { name: 'orphans', kinds: ['remove_orphans'] }).expect(202);
  const waited = await finishedRun(ref, 'remove_orphans', started);
  expect(waited).toMatchObject({ status: 'skipped', after: { orphan_candidates: 1 } });
  expect(waited.reason).toMatch(/1 unnamed but younger than 3 days/);
  expect(await exists(ref, orphan)).toBe(true);

  // The same runner with no age limit, on the real table through its vended session: the orphan goes, the table stays whole.
  const res = await catalog().get(`/v1/${w.warehouse_id}/namespaces/mt/tables/orphans`).set(bearer(t.token)).set('X-Iceberg-Access-Delegation', 'vended-credentials').expect(200);
  const loaded = toLoadTableResult(parseJson(res.text));
  const access = accessOf({ storage: adminStorage() }, { warehouseId: w.warehouse_id, namespace: ['mt'], table: 'orphans' }, loaded);
  const ctx = { catalog: null as never, logger: createLogger('test', 'error'), nowMs: Date.now() + 1000, orphanAgeMs: 0, engine: () => Promise.reject(new Error('no engine here')), holdGate: () => Promise.reject(new Error('no gate here')) };
  const plan = await removeOrphans.plan(ctx, access);
  expect(plan.candidates.map((c) => c.path)).toEqual([orphan]);
  expect(await removeOrphans.apply(ctx, access, plan)).toMatchObject({ freedBytes: 'not committed'.length });
  expect(await exists(ref, orphan)).toBe(false);
  expect(await rowsOf(ref)).toEqual({ count: 1, sum: 1 });
}, 60_000);

test('refusals: unknown and unbuilt kinds, wrong types, read level, another organisation, a missing table, a deleted catalog', async () => {
  await newTable('refused');
  expectError(await ask(admin.api_key, { name: 'refused', kinds: ['defragment'] }), 400, 'invalid_value');
  expectError(await ask(admin.api_key, { name: 'refused', kinds: 'expire_snapshots' }), 400, 'invalid_value');
  expectError(await ask(admin.api_key, { name: 'refused', dry_run: 'yes' }), 400, 'invalid_value');
  expectError(await ask(admin.api_key, { kinds: ['expire_snapshots'] }), 400, 'missing_field');
  expectError(await ask(admin.api_key, { name: 'ghost' }), 404, 'table_not_found');
  expectError(await ask(admin.api_key, { namespace: 'nowhere', name: 'refused' }), 404, 'namespace_not_found');

  // A member reads (implicit read) but may not ask for a run.
  const member = await newMember(org as never);
  expect((await health(member.api_key, 'refused')).status).toBe(200);
  expectError(await ask(member.api_key, { name: 'refused' }), 403, 'forbidden');

  // Another organisation sees nothing.
  const other = await newOrgWithAdmin();
  expectError(await health(other.admin.api_key, 'refused'), 404, 'warehouse_not_found');
  expectError(await ask(other.admin.api_key, { name: 'refused' }), 404, 'warehouse_not_found');

  // A deleted catalog.
  const gone = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  await gateway().delete(`/v1/warehouses/${gone.warehouse_id}`).set(bearer(admin.api_key)).send({ confirm: gone.name }).expect(202);
  expectError(await gateway().post(path).set(bearer(admin.api_key)).send({ warehouse: gone.warehouse_id, namespace: 'mt', name: 'refused' }), 404, 'warehouse_deleting');
}, 60_000);
