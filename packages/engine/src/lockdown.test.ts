// The engine's lockdown against real DuckDB: only its scratch directory can be
// read or written, no extension can be installed or loaded, and no SQL can
// undo a setting.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeParquetDataFile } from '@floe/iceberg';
import { openEngine } from './engine.js';
import { openScratch, schema, row, type Scratch } from './test-fixtures.js';

let s: Scratch;
let outside: string;
beforeAll(async () => {
  s = await openScratch();
  // A readable Parquet file beside the scratch directory, not in it.
  mkdirSync(join(s.dir, 'elsewhere'));
  outside = join(s.dir, 'elsewhere', 'data.parquet');
  writeFileSync(outside, writeParquetDataFile({ schema, rows: [row(1)] }).bytes);
  writeFileSync(join(s.engine.scratchDir, 'inside.parquet'), writeParquetDataFile({ schema, rows: [row(1)] }).bytes);
});
afterAll(() => s?.close());

const FILE_ACCESS = /Permission Error|disabled by configuration/;

test('the settings are in force', async () => {
  const [settings] = await s.engine.query(`SELECT
    current_setting('enable_external_access') AS external, current_setting('allowed_directories') AS allowed,
    current_setting('lock_configuration') AS locked, current_setting('autoinstall_known_extensions') AS autoinstall,
    current_setting('autoload_known_extensions') AS autoload, current_setting('allow_community_extensions') AS community,
    current_setting('temp_directory') AS temp, current_setting('threads') AS threads, current_setting('memory_limit') AS memory,
    current_setting('TimeZone') AS tz`);
  expect(settings).toEqual({
    external: false, allowed: [`${s.engine.scratchDir}/`, `${s.engine.scratchDir}/.spill/`], locked: true, autoinstall: false,
    autoload: false, community: false, temp: join(s.engine.scratchDir, '.spill'), threads: 2n, memory: '488.2 MiB', tz: 'UTC',
  });
});

test('files inside the scratch directory can be read and written', async () => {
  const inside = join(s.engine.scratchDir, 'inside.parquet');
  expect(await s.engine.countRows([inside])).toBe(1n);
  await s.engine.query(`COPY (SELECT 1 AS x) TO '${join(s.engine.scratchDir, 'written.parquet')}' (FORMAT parquet)`);
});

test.each([
  ["read_csv('/etc/passwd')", "SELECT * FROM read_csv('/etc/passwd')"],
  ['read_text outside', "SELECT * FROM read_text('/etc/hostname')"],
  ['a Parquet file outside', () => `SELECT * FROM read_parquet('${outside}')`],
  ['a .. escape', () => `SELECT * FROM read_parquet('${s.engine.scratchDir}/../elsewhere/data.parquet')`],
  ['glob outside', "SELECT * FROM glob('/etc/*')"],
  ['COPY to outside', () => `COPY (SELECT 1 AS x) TO '${join(s.dir, 'elsewhere', 'out.parquet')}' (FORMAT parquet)`],
  ['ATTACH outside', () => `ATTACH '${join(s.dir, 'elsewhere', 'db.duckdb')}' AS other`],
])('reading or writing outside the scratch directory is refused: %s', async (_, sql) => {
  await expect(s.engine.query(typeof sql === 'function' ? sql() : sql)).rejects.toThrow(FILE_ACCESS);
});

test.each([
  ['INSTALL httpfs', FILE_ACCESS],
  ['INSTALL json', FILE_ACCESS],
  ['LOAD httpfs', /disabled/],
  ["INSTALL httpfs FROM 'http://127.0.0.1:9/'", FILE_ACCESS],
  ["SELECT * FROM read_parquet('https://example.com/x.parquet')", /httpfs|disabled|not loaded|Permission/],
])('no extension is installed or loaded: %s', async (sql, error) => {
  await expect(s.engine.query(sql)).rejects.toThrow(error);
});

test.each([
  'SET enable_external_access = true',
  "SET allowed_directories = ['/']",
  'SET lock_configuration = false',
  'RESET lock_configuration',
  "SET memory_limit = '64GB'",
  'SET threads = 64',
  "SET temp_directory = '/tmp'",
  'SET autoload_known_extensions = true',
  "SET TimeZone = 'Europe/Paris'",
])('the configuration is locked: %s', async (sql) => {
  await expect(s.engine.query(sql)).rejects.toThrow(/configuration has been locked/);
});

test('bad options are refused; a closed engine refuses work', async () => {
  await expect(openEngine({ scratchDir: join(s.dir, 'x'), memoryLimit: "1GB'; SELECT 1", threads: 1 })).rejects.toThrow(/memoryLimit/);
  await expect(openEngine({ scratchDir: join(s.dir, 'x'), memoryLimit: '1GB', threads: 0 })).rejects.toThrow(/threads/);
  const engine = await openEngine({ scratchDir: join(s.dir, 'closing'), memoryLimit: '256MB', threads: 1 });
  expect(await engine.query('SELECT 42 AS n')).toEqual([{ n: 42 }]);
  engine.close();
  await expect(engine.query('SELECT 1')).rejects.toThrow(/closed/);
});
