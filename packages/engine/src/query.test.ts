// The query route's statement against real DuckDB: what parses as one
// read-only SELECT and which tables it names; the refusals of everything
// else; and the sandbox a statement runs in — its tables as views over
// local files, its caps, its timeout, and no file outside its directory
// even when a view asks for one.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeParquetDataFile } from '@floe/iceberg';
import { QueryRefused, QueryTimedOut, QueryTooLarge, readOnlyStatement, runReadOnlyStatement, type RunRequest, type TableView } from './query.js';
import { row, schema } from './test-fixtures.js';
import { literal } from './sql.js';

let root: string;
let dir: string;
let views: TableView[];
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'floe-query-'));
  dir = join(root, 'statement');
  mkdirSync(dir);
  const file = (name: string, from: number, count: number) => {
    const path = join(dir, name);
    writeFileSync(path, writeParquetDataFile({ schema, rows: Array.from({ length: count }, (_, k) => row(from + k)) }).bytes);
    return path;
  };
  views = [
    { namespace: 'shop', table: 'orders', select: `SELECT * FROM read_parquet([${literal(file('a.parquet', 0, 300))}, ${literal(file('b.parquet', 300, 200))}])` },
    { namespace: 'shop', table: 'returns', select: `SELECT * FROM read_parquet(${literal(file('c.parquet', 0, 10))})` },
  ];
  // A file beside the statement's directory: no statement may read it.
  writeFileSync(join(root, 'secret.parquet'), writeParquetDataFile({ schema, rows: [row(1)] }).bytes);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const run = async (sql: string, over: Partial<RunRequest> = {}) => runReadOnlyStatement({
  statement: await readOnlyStatement(sql), views, dir, memoryLimit: '256MB', threads: 1, timeoutMs: 5000, rowLimit: 2000, byteLimit: 1_000_000, ...over,
});

describe('readOnlyStatement', () => {
  test('answers the tables a SELECT reads, once each, skipping its own CTE names, and its canonical text', async () => {
    const s = await readOnlyStatement(`WITH big AS (SELECT * FROM shop.orders WHERE qty > 10)
      SELECT b.category, count(*) FROM big b JOIN shop.returns r USING (id), (SELECT 1) one
      WHERE b.id IN (SELECT id FROM shop.orders) GROUP BY 1;`);
    expect(s.tables).toEqual([{ namespace: 'shop', table: 'orders' }, { namespace: 'shop', table: 'returns' }]);
    expect(s.sql).not.toMatch(/;\s*$/);
    expect((await readOnlyStatement('SELECT * FROM "odd ns"."a table"')).tables).toEqual([{ namespace: 'odd ns', table: 'a table' }]);
    expect((await readOnlyStatement('SELECT * FROM range(3)')).tables).toEqual([]);
  });

  test.each([
    ['COPY', "COPY (SELECT 1) TO '/tmp/out.csv'", /only a SELECT/],
    ['ATTACH', "ATTACH '/tmp/x.duckdb' AS x", /only a SELECT/],
    ['INSTALL', 'INSTALL httpfs', /only a SELECT/],
    ['LOAD', 'LOAD httpfs', /only a SELECT/],
    ['SET', "SET memory_limit = '100GB'", /only a SELECT/],
    ['PRAGMA', 'PRAGMA database_list', /only a SELECT/],
    ['a change', 'DELETE FROM shop.orders', /only a SELECT/],
    ['a second statement', 'SELECT 1; DROP TABLE shop.orders', /only a SELECT|one statement/],
    ['two SELECTs', 'SELECT 1; SELECT 2', /one statement; this is 2/],
    ['read_csv', "SELECT * FROM read_csv('/etc/passwd')", /table function read_csv/],
    ['read_text', "SELECT * FROM read_text('/etc/hostname')", /table function read_text/],
    ['read_parquet', "SELECT * FROM read_parquet('s3://other-bucket/ns/t/data/x.parquet')", /table function read_parquet/],
    ['glob', "SELECT * FROM glob('/etc/*')", /table function glob/],
    ['a settings function', 'SELECT * FROM duckdb_settings()', /table function duckdb_settings/],
    ['a setting read', "SELECT current_setting('allowed_directories')", /function current_setting is not available/],
    ['the environment', "SELECT upper(getenv('HOME'))", /function getenv is not available/],
    ['a file as a table', "SELECT * FROM '/etc/passwd'", /namespace/],
    ['no namespace', 'SELECT * FROM orders', /namespace\.orders/],
    ['a catalog', 'SELECT * FROM other.shop.orders', /without a catalog/],
    ['a NUL', 'SELECT 1\0', /NUL/],
    ['a syntax error', 'SELEC 1', /does not parse/],
  ])('refuses %s', async (_, sql, reason) => {
    await expect(readOnlyStatement(sql)).rejects.toThrow(QueryRefused);
    await expect(readOnlyStatement(sql)).rejects.toThrow(reason);
  });
});

describe('runReadOnlyStatement', () => {
  test('reads the views: columns with their types, JSON-safe values', async () => {
    const r = await run('SELECT id, category, amount, day, ts FROM shop.orders WHERE id < 3 ORDER BY id');
    expect(r.columns).toEqual([
      { name: 'id', type: 'BIGINT' }, { name: 'category', type: 'VARCHAR' }, { name: 'amount', type: 'DECIMAL(12,2)' },
      { name: 'day', type: 'DATE' }, { name: 'ts', type: 'TIMESTAMP WITH TIME ZONE' },
    ]);
    expect(r.rows.map((x) => x.id)).toEqual(['0', '1', '2']);
    expect(r.rows[1]).toMatchObject({ category: 'beta', amount: '-2499.01', day: '2022-01-09' });
    expect(r).toMatchObject({ row_count: 3, truncated: false });
    expect((await run('SELECT count(*) AS n FROM shop.orders o JOIN shop.returns USING (id)')).rows).toEqual([{ n: '10' }]);
  });

  test('cuts the answer at the row cap and at the byte cap, and says so', async () => {
    const rows = await run('SELECT id FROM shop.orders', { rowLimit: 100 });
    expect(rows).toMatchObject({ row_count: 100, truncated: true });
    const bytes = await run('SELECT * FROM shop.orders', { byteLimit: 10_000 });
    expect(bytes.truncated).toBe(true);
    expect(JSON.stringify(bytes.rows).length).toBeLessThanOrEqual(10_000);
    expect(bytes.row_count).toBeGreaterThan(0);
    expect(await run('SELECT id FROM shop.returns')).toMatchObject({ row_count: 10, truncated: false });
  });

  test('a statement that never ends is interrupted at its timeout', async () => {
    await expect(run('WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r', { timeoutMs: 300 }))
      .rejects.toThrow(QueryTimedOut);
    // The next statement runs as ever.
    expect((await run('SELECT count(*) AS n FROM shop.orders')).rows).toEqual([{ n: '500' }]);
  });

  test('a statement that needs more memory than its cap is refused or cut, never the process', async () => {
    const sql = 'SELECT a.category, b.category, string_agg(a.category || b.category, \',\') AS s FROM shop.orders a, shop.orders b, range(200) GROUP BY ALL ORDER BY s DESC';
    await expect(run(sql, { memoryLimit: '32MB', timeoutMs: 20_000 })).rejects.toThrow(QueryTooLarge);
    expect((await run('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  test('the sandbox holds even against its own views: no file outside the statement\'s directory', async () => {
    const outside: TableView[] = [...views, { namespace: 'x', table: 'leak', select: `SELECT * FROM read_parquet(${literal(join(root, 'secret.parquet'))})` }];
    await expect(run('SELECT * FROM x.leak', { views: outside })).rejects.toThrow(/Permission|disabled/);
    const passwd: TableView[] = [...views, { namespace: 'x', table: 'leak', select: "SELECT * FROM read_csv('/etc/passwd')" }];
    await expect(run('SELECT * FROM x.leak', { views: passwd })).rejects.toThrow(/Permission|disabled/);
  });

  test('a table from its files: read by field id under its schema, its position and equality deletes applied, each table\'s deletes its own', async () => {
    const files = (name: string, from: number, count: number) => {
      const localPath = join(dir, name);
      writeFileSync(localPath, writeParquetDataFile({ schema, rows: Array.from({ length: count }, (_, k) => row(from + k)) }).bytes);
      return { localPath, filePath: `s3://bucket/ns/t/data/${name}` };
    };
    const e1 = files('e1.parquet', 0, 100);
    const e2 = files('e2.parquet', 100, 100);
    // Equality deletes on `category` (field 2): every `gamma` row goes.
    const eqPath = join(dir, 'eq.parquet');
    const eqSchema = { type: 'struct' as const, 'schema-id': 0, fields: [schema.fields[1]] };
    writeFileSync(eqPath, writeParquetDataFile({ schema: eqSchema, rows: [{ category: 'gamma' }] }).bytes);
    const tables: TableView[] = [
      { namespace: 'app', table: 'events', schema, parts: [{ files: [e1, e2], positionDeletes: { rows: [{ file_path: e2.filePath, pos: 0 }, { file_path: e1.filePath, pos: 1 }] }, equalityDeletes: [{ localPath: eqPath, equalityIds: [2] }] }] },
      { namespace: 'app', table: 'copy', schema, parts: [{ files: [files('c1.parquet', 0, 10)], positionDeletes: { rows: [{ file_path: 's3://bucket/ns/t/data/c1.parquet', pos: 9 }] } }] },
      { namespace: 'app', table: 'empty', schema, parts: [] },
    ];
    const gamma = Array.from({ length: 200 }, (_, i) => row(i)).filter((x) => x.category === 'gamma').map((x) => Number(x.id));
    const gone = new Set([...gamma, 100, 1]);
    const r = await run('SELECT (SELECT count(*) FROM app.events) AS events, (SELECT count(*) FROM app.copy) AS copies, (SELECT max(id) FROM app.copy) AS top, (SELECT count(*) FROM app.empty) AS empty', { views: tables });
    expect(r.rows).toEqual([{ events: String(200 - gone.size), copies: '9', top: '8', empty: '0' }]);
    const ids = await run('SELECT id FROM app.events ORDER BY id', { views: tables });
    expect(ids.rows.map((x) => Number(x.id))).toEqual(Array.from({ length: 200 }, (_, i) => i).filter((i) => !gone.has(i)));
    const typed = await run('SELECT * FROM app.empty', { views: tables });
    expect(typed.columns.map((c) => c.name)).toEqual(schema.fields.map((f) => f.name));
    expect(typed.columns.find((c) => c.name === 'amount')?.type).toBe('DECIMAL(12,2)');
    const outside = [{ namespace: 'app', table: 'leak', schema, parts: [{ files: [{ localPath: join(root, 'secret.parquet'), filePath: 's3://x/secret.parquet' }] }] }];
    await expect(run('SELECT * FROM app.leak', { views: outside })).rejects.toThrow(/not under the statement's directory/);
  });

  test('a table the statement names needs its view (a planner that forgot one is a bug, not a leak)', async () => {
    await expect(run('SELECT * FROM shop.missing')).rejects.toThrow(/no view for shop\.missing/);
  });
});
