import { randomUUID } from 'node:crypto';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { adminStorage } from '../support/store';
import { until } from '../support/poll';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { catalog, icebergError, token } from './catalog-helpers';
import { bearer, db, stack } from './helpers';

// A table's location is a credential: vended sessions, purges and metadata
// writes act there. Every path that sets or derives one (create, stage-create,
// register, commit, transactions, the write.*.path properties) keeps it an
// s3:// URI inside the warehouse's own table bucket, free of IAM wildcard
// characters, never equal to, inside or enclosing another live table's or
// view's location; a purge deletes only what the dropped table owned, as the
// warehouse's own identity.

let mine: TestWarehouse;
let theirs: TestWarehouse;
let rw: string;
let theirRw: string;
const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] };
const tables = (w: TestWarehouse, ns = 'shop') => `/v1/${w.id}/namespaces/${ns}/tables`;

async function createTable(w: TestWarehouse, t: string, name: string, extra: Record<string, unknown> = {}, ns = 'shop') {
  return catalog().post(tables(w, ns)).set(bearer(t)).send({ name, schema, ...extra });
}

async function keysUnder(bucket: string, prefix: string): Promise<string[]> {
  const out = await adminStorage().s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key!);
}

const keyOf = (location: string) => location.replace(/^s3:\/\/[^/]+\//, '');

async function putUnder(w: TestWarehouse, location: string, file: string): Promise<void> {
  await adminStorage().s3.send(new PutObjectCommand({ Bucket: w.tableBucket, Key: `${keyOf(location)}/${file}`, Body: 'x' }));
}

async function purgesOf(w: TestWarehouse): Promise<Array<{ location: string; done_at: Date | null; objects: number | null; outcome: string | null }>> {
  const pool = db();
  try {
    return (await pool.query(`SELECT location, done_at, objects, outcome FROM catalog_purges WHERE warehouse_id = $1 ORDER BY id`, [w.id])).rows;
  } finally {
    await pool.end();
  }
}

beforeAll(async () => {
  [mine, theirs] = await Promise.all([createTestWarehouse(stack()), createTestWarehouse(stack())]);
  rw = await token(mine.rw.clientId, mine.rw.clientSecret);
  theirRw = await token(theirs.rw.clientId, theirs.rw.clientSecret);
  for (const [w, t] of [[mine, rw], [theirs, theirRw]] as const) {
    await catalog().post(`/v1/${w.id}/namespaces`).set(bearer(t)).send({ namespace: ['shop'] }).expect(200);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all([removeTestWarehouse(mine), removeTestWarehouse(theirs)]);
}, 60_000);

/** Locations no path may set: [location, a word of the rule the refusal must name]. */
function refusedLocations(): Array<[string, RegExp]> {
  return [
    [`s3://${theirs.tableBucket}/shop/stolen`, /table bucket/],
    [`s3://${mine.blobBucket}/shop/t`, /table bucket/],
    [`http://${mine.tableBucket}/shop/t`, /s3:\/\//],
    ['file:///etc/passwd', /s3:\/\//],
    [`s3://${mine.tableBucket}`, /table bucket/],
    [`s3://${mine.tableBucket}/*`, /character/],
    [`s3://${mine.tableBucket}/shop/t?x`, /character/],
    [`s3://${mine.tableBucket}/shop/$\{aws:username}`, /character/],
    [`s3://${mine.tableBucket}/shop/../other`, /segment/],
    [`s3://${mine.tableBucket}/shop//t`, /segment/],
    [`s3://${mine.tableBucket}/shop`, /encloses/],
  ];
}

describe('create and stage-create', () => {
  test('a derived location is inside the bucket, percent-encoded, and never a wildcard', async () => {
    await catalog().post(`/v1/${mine.id}/namespaces`).set(bearer(rw)).send({ namespace: ['odd*ns'] }).expect(200);
    const res = await createTable(mine, rw, 'star*table?', {}, encodeURIComponent('odd*ns'));
    expect(res.status).toBe(200);
    expect(res.body.metadata.location).toMatch(new RegExp(`^s3://${mine.tableBucket}/odd%2Ans/star%2Atable%3F-[0-9a-f]{32}$`));
    expect(res.body['metadata-location'].startsWith(`${res.body.metadata.location}/metadata/`)).toBe(true);
  });

  test('every refused location is 400 BadRequestException naming the rule, for create and stage-create', async () => {
    const anchor = await createTable(mine, rw, 'anchor');
    expect(anchor.status).toBe(200);
    const anchored = anchor.body.metadata.location as string;
    const cases: Array<[string, RegExp]> = [
      ...refusedLocations(),
      [anchored, /already held/],
      [`${anchored}/inner`, /inside/],
    ];
    for (const [location, rule] of cases) {
      for (const staged of [false, true]) {
        const res = await createTable(mine, rw, `x_${randomUUID().slice(0, 8)}`, { location, 'stage-create': staged });
        icebergError(res, 400, 'BadRequestException');
        expect([location, res.body.error.message]).toEqual([location, expect.stringMatching(rule)]);
      }
    }
  });

  test('write.metadata.path, write.data.path and write.object-storage.path stay inside the table\'s own location', async () => {
    for (const key of ['write.metadata.path', 'write.data.path', 'write.object-storage.path']) {
      const outside = await createTable(mine, rw, `p_${randomUUID().slice(0, 8)}`, { properties: { [key]: `s3://${theirs.tableBucket}/x` } });
      icebergError(outside, 400, 'BadRequestException');
      expect(outside.body.error.message).toContain(key);
    }
    const location = `s3://${mine.tableBucket}/custom/paths`;
    const ok = await createTable(mine, rw, 'paths', { location, properties: { 'write.metadata.path': `${location}/meta`, 'write.data.path': `${location}/files` } });
    expect(ok.status).toBe(200);
    // The first metadata file goes where write.metadata.path says, as every later one does.
    expect(ok.body['metadata-location'].startsWith(`${location}/meta/00000-`)).toBe(true);
  });

  test('a custom location inside the bucket that overlaps nothing is accepted; a sibling with a common name prefix is not an overlap', async () => {
    const a = await createTable(mine, rw, 'custom_a', { location: `s3://${mine.tableBucket}/custom/ab/` });
    expect(a.status).toBe(200);
    expect(a.body.metadata.location).toBe(`s3://${mine.tableBucket}/custom/ab`);
    expect((await createTable(mine, rw, 'custom_b', { location: `s3://${mine.tableBucket}/custom/abc` })).status).toBe(200);
  });
});

describe('commits', () => {
  let location: string;
  let other: string;

  beforeAll(async () => {
    location = (await createTable(mine, rw, 'movable')).body.metadata.location;
    other = (await createTable(mine, rw, 'neighbour')).body.metadata.location;
  });

  const setLocation = (to: string) => ({ updates: [{ action: 'set-location', location: to }] });

  test('set-location to any refused place is 400, and the table still loads where it was', async () => {
    const cases: Array<[string, RegExp]> = [...refusedLocations(), [other, /already held/], [`${other}/sub`, /inside/]];
    for (const [to, rule] of cases) {
      const res = await catalog().post(`${tables(mine)}/movable`).set(bearer(rw)).send(setLocation(to));
      icebergError(res, 400, 'BadRequestException');
      expect([to, res.body.error.message]).toEqual([to, expect.stringMatching(rule)]);
      const tx = await catalog().post(`/v1/${mine.id}/transactions/commit`).set(bearer(rw))
        .send({ 'table-changes': [{ identifier: { namespace: ['shop'], name: 'movable' }, ...setLocation(to) }] });
      icebergError(tx, 400, 'BadRequestException');
    }
    const loaded = await catalog().get(`${tables(mine)}/movable`).set(bearer(rw));
    expect(loaded.status).toBe(200);
    expect(loaded.body.metadata.location).toBe(location);
  });

  test('set-properties cannot point write paths outside the table', async () => {
    for (const key of ['write.metadata.path', 'write.data.path', 'write.object-storage.path']) {
      const res = await catalog().post(`${tables(mine)}/movable`).set(bearer(rw))
        .send({ updates: [{ action: 'set-properties', updates: { [key]: other } }] });
      icebergError(res, 400, 'BadRequestException');
    }
  });

  test('a move to a free place inside the bucket is accepted, and frees the old place', async () => {
    const to = `s3://${mine.tableBucket}/moved/here`;
    const res = await catalog().post(`${tables(mine)}/movable`).set(bearer(rw)).send(setLocation(to));
    expect(res.status).toBe(200);
    expect(res.body.metadata.location).toBe(to);
    expect((await createTable(mine, rw, 'in_old_place', { location })).status).toBe(200);
    icebergError(await createTable(mine, rw, 'in_new_place', { location: `${to}/x` }), 400, 'BadRequestException');
  });
});

describe('register', () => {
  test('metadata whose location is elsewhere, or overlaps a live table, is refused', async () => {
    const victim = (await createTable(mine, rw, 'reg_victim')).body.metadata.location as string;
    for (const [location, rule] of [[`s3://${theirs.tableBucket}/x`, /table bucket/], [`s3://${mine.tableBucket}/shop`, /encloses/], [victim, /already held/]] as const) {
      // The file lies within the location it names when that is in this bucket, so the location's own rule is what refuses.
      const file = location.startsWith(`s3://${mine.tableBucket}/`) ? `${location}/metadata/${randomUUID()}.metadata.json` : `s3://${mine.tableBucket}/reg/${randomUUID()}.metadata.json`;
      const meta = { 'format-version': 2, 'table-uuid': randomUUID(), location, 'last-sequence-number': 0, 'last-updated-ms': Date.now(), 'last-column-id': 1,
        'current-schema-id': 0, schemas: [schema], 'default-spec-id': 0, 'partition-specs': [{ 'spec-id': 0, fields: [] }], 'last-partition-id': 999,
        'default-sort-order-id': 0, 'sort-orders': [{ 'order-id': 0, fields: [] }], properties: {}, snapshots: [], 'snapshot-log': [], 'metadata-log': [] };
      await adminStorage().s3.send(new PutObjectCommand({ Bucket: mine.tableBucket, Key: keyOf(file), Body: JSON.stringify(meta) }));
      const res = await catalog().post(`/v1/${mine.id}/namespaces/shop/register`).set(bearer(rw)).send({ name: `r_${randomUUID().slice(0, 8)}`, 'metadata-location': file });
      icebergError(res, 400, 'BadRequestException');
      expect(res.body.error.message).toMatch(rule);
    }
  });
});

describe('views', () => {
  test('a view\'s location follows the same rules', async () => {
    const table = (await createTable(mine, rw, 'under_view')).body.metadata.location as string;
    const view = (location: string) => ({
      name: `v_${randomUUID().slice(0, 8)}`, location, schema,
      'view-version': { 'version-id': 1, 'timestamp-ms': Date.now(), 'schema-id': 0, summary: {}, 'default-namespace': ['shop'],
        representations: [{ type: 'sql', sql: 'select 1', dialect: 'spark' }] },
      properties: {},
    });
    for (const location of [`s3://${theirs.tableBucket}/v`, `s3://${mine.tableBucket}/v*`, table, `s3://${mine.tableBucket}/shop`]) {
      icebergError(await catalog().post(`/v1/${mine.id}/namespaces/shop/views`).set(bearer(rw)).send(view(location)), 400, 'BadRequestException');
    }
    expect((await catalog().post(`/v1/${mine.id}/namespaces/shop/views`).set(bearer(rw)).send(view(`s3://${mine.tableBucket}/views/v1`))).status).toBe(200);
  });
});

describe('purge', () => {
  test('a purge deletes the dropped table\'s files and nothing of a sibling whose name shares its prefix; it is audited', async () => {
    const a = (await createTable(mine, rw, 'purge_a', { location: `s3://${mine.tableBucket}/purge/a` })).body;
    const ab = (await createTable(mine, rw, 'purge_ab', { location: `s3://${mine.tableBucket}/purge/ab` })).body;
    await putUnder(mine, a.metadata.location, 'data/one.parquet');
    await putUnder(mine, ab.metadata.location, 'data/two.parquet');
    const res = await catalog().delete(`${tables(mine)}/purge_a`).query({ purgeRequested: 'true' }).set(bearer(rw));
    expect(res.status).toBe(204);
    await until('the purge to finish', async () => ((await purgesOf(mine)).find((p) => p.location === a.metadata.location)?.done_at ? true : null));
    expect(await keysUnder(mine.tableBucket, 'purge/a/')).toEqual([]);
    expect(await keysUnder(mine.tableBucket, 'purge/ab/')).toEqual(expect.arrayContaining(['purge/ab/data/two.parquet']));
    expect((await catalog().get(`${tables(mine)}/purge_ab`).set(bearer(rw))).status).toBe(200);
    const purge = (await purgesOf(mine)).find((p) => p.location === a.metadata.location)!;
    expect(purge).toMatchObject({ outcome: 'purged', objects: 2 });
    const pool = db();
    try {
      const { rows } = await pool.query(`SELECT data FROM audit_events WHERE action = 'table.purge' AND data->>'warehouse_id' = $1`, [mine.id]);
      expect(rows.map((r) => r.data)).toContainEqual(expect.objectContaining({ table: 'shop.purge_a', location: a.metadata.location, objects: 2, outcome: 'purged' }));
    } finally {
      await pool.end();
    }
  }, 30_000);

  test('a dropped location is held until its purge ends: no new table may take it meanwhile', async () => {
    const location = `s3://${mine.tableBucket}/held/t`;
    const pool = db();
    try {
      // An unfinished purge, claimed by a busy replica so the loop leaves it be.
      await pool.query(`INSERT INTO catalog_purges (warehouse_id, location, table_ident, claimed_at) VALUES ($1, $2, 'shop.gone', now())`, [mine.id, location]);
      for (const at of [location, `${location}/inner`, `s3://${mine.tableBucket}/held`]) {
        const res = await createTable(mine, rw, `taker_${randomUUID().slice(0, 8)}`, { location: at });
        icebergError(res, 400, 'BadRequestException');
        expect(res.body.error.message).toMatch(/shop\.gone, whose purge has not finished/);
      }
    } finally {
      await pool.query(`UPDATE catalog_purges SET done_at = now(), outcome = 'purged' WHERE location = $1`, [location]);
      await pool.end();
    }
    expect((await createTable(mine, rw, 'taker_after', { location })).status).toBe(200);
  });

  test('a purge of a location outside the warehouse, left by older versions, is refused and touches nothing', async () => {
    // The hole this closes: a table moved into another tenant's bucket, then dropped with purge.
    await putUnder(theirs, `s3://${theirs.tableBucket}/shop/precious`, 'data/keep.parquet');
    const victim = `s3://${theirs.tableBucket}/shop/precious`;
    const created = (await createTable(mine, rw, 'legacy_thief')).body;
    const pool = db();
    try {
      // Older versions accepted any set-location: write such a table the way they left it.
      const file = `s3://${mine.tableBucket}/legacy/${randomUUID()}.metadata.json`;
      await adminStorage().s3.send(new PutObjectCommand({ Bucket: mine.tableBucket, Key: keyOf(file), Body: JSON.stringify({ ...created.metadata, location: victim }) }));
      await pool.query(`UPDATE catalog_tables SET metadata_location = $2, location = $3 WHERE warehouse_id = $1 AND name = 'legacy_thief'`, [mine.id, file, victim]);
    } finally {
      await pool.end();
    }
    icebergError(await catalog().get(`${tables(mine)}/legacy_thief/credentials`).set(bearer(rw)), 403, 'ForbiddenException');
    await catalog().delete(`${tables(mine)}/legacy_thief`).query({ purgeRequested: 'true' }).set(bearer(rw)).expect(204);
    const purge = await until('the purge to be decided', async () => (await purgesOf(mine)).find((p) => p.location === victim && p.done_at) ?? null);
    expect(purge.outcome).toMatch(/^refused: .*table bucket/);
    expect(await keysUnder(theirs.tableBucket, 'shop/precious/')).toEqual(['shop/precious/data/keep.parquet']);
  }, 30_000);

  test('a purge acts as the warehouse\'s own storage identity, never the service\'s', async () => {
    const own = await createTestWarehouse(stack());
    try {
      const t = await token(own.rw.clientId, own.rw.clientSecret);
      await catalog().post(`/v1/${own.id}/namespaces`).set(bearer(t)).send({ namespace: ['shop'] }).expect(200);
      const location = (await createTable(own, t, 'doomed')).body.metadata.location as string;
      await putUnder(own, location, 'data/f.parquet');
      // Take away the identity's key: a purge run as the admin would still succeed.
      await adminStorage().deleteAccessKey(`t-${own.id}`, own.storage.accessKeyId);
      await catalog().delete(`${tables(own)}/doomed`).query({ purgeRequested: 'true' }).set(bearer(t)).expect(204);
      await new Promise((r) => setTimeout(r, 5_000));
      expect((await keysUnder(own.tableBucket, `${keyOf(location)}/data/`)).length).toBe(1);
      expect((await purgesOf(own)).find((p) => p.location === location)?.done_at).toBeNull();
    } finally {
      await removeTestWarehouse(own);
    }
  }, 30_000);

  test('20 concurrent drops of one table: one 204, the rest 404 NoSuchTableException, one purge', async () => {
    const location = (await createTable(mine, rw, 'raced')).body.metadata.location as string;
    const answers = await Promise.all(Array.from({ length: 20 }, () => catalog().delete(`${tables(mine)}/raced`).query({ purgeRequested: 'true' }).set(bearer(rw))));
    expect(answers.filter((r) => r.status === 204)).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 204)) icebergError(r, 404, 'NoSuchTableException');
    expect((await purgesOf(mine)).filter((p) => p.location === location)).toHaveLength(1);
  });
});

describe('races for one place', () => {
  // Widens the window between a write's overlap check and its insert or
  // update, for these tests' rows only (other test files share the database):
  // without the warehouse's location lock, several racers would pass the
  // check before any had written.
  beforeAll(async () => {
    const pool = db();
    try {
      await pool.query(`CREATE OR REPLACE FUNCTION test_slow_race_rows() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.location LIKE '%/race-%' THEN PERFORM pg_sleep(0.05); END IF; RETURN NEW; END $$`);
      await pool.query(`CREATE TRIGGER test_slow_race_rows BEFORE INSERT OR UPDATE ON catalog_tables FOR EACH ROW EXECUTE FUNCTION test_slow_race_rows()`);
    } finally {
      await pool.end();
    }
  });
  afterAll(async () => {
    const pool = db();
    try {
      await pool.query(`DROP TRIGGER IF EXISTS test_slow_race_rows ON catalog_tables`);
    } finally {
      await pool.end();
    }
  });

  const locationsIn = async (w: TestWarehouse, prefix: string) => {
    const pool = db();
    try {
      return (await pool.query(`SELECT location FROM catalog_tables WHERE warehouse_id = $1 AND starts_with(location, $2) ORDER BY location`, [w.id, prefix])).rows.map((r) => r.location as string);
    } finally {
      await pool.end();
    }
  };

  test('20 concurrent creates at nested locations (each encloses the next): exactly one is placed, the rest 400 naming the overlap', async () => {
    const base = `s3://${mine.tableBucket}/race-create`;
    const nested = Array.from({ length: 20 }, (_, i) => `${base}/${Array.from({ length: i + 1 }, (_, j) => `l${j}`).join('/')}`);
    const answers = await Promise.all(nested.map((location, i) => createTable(mine, rw, `nest_${i}`, { location })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      icebergError(a, 400, 'BadRequestException');
      expect(a.body.error.message).toMatch(/already held by|lies inside|encloses/);
    }
    expect(await locationsIn(mine, base)).toHaveLength(1);
  }, 30_000);

  test('20 tables moved to one new place at once: exactly one moves, the rest 400 and stay where they were', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `mover_${i}`);
    const before = new Map<string, string>();
    for (const name of names) {
      const res = await createTable(mine, rw, name);
      expect(res.status).toBe(200);
      before.set(name, res.body.metadata.location);
    }
    const target = `s3://${mine.tableBucket}/race-move/here`;
    const answers = await Promise.all(names.map((name) => catalog().post(`${tables(mine)}/${name}`).set(bearer(rw))
      .send({ requirements: [], updates: [{ action: 'set-location', location: target }] })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) {
      icebergError(a, 400, 'BadRequestException');
      expect(a.body.error.message).toMatch(/already held by/);
    }
    expect(await locationsIn(mine, `s3://${mine.tableBucket}/race-move`)).toEqual([target]);
    for (const [i, name] of names.entries()) {
      const loaded = await catalog().get(`${tables(mine)}/${name}`).set(bearer(rw));
      expect(loaded.status).toBe(200);
      expect(loaded.body.metadata.location).toBe(answers[i].status === 200 ? target : before.get(name));
    }
  }, 60_000);
});
