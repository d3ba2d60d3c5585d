// Shared fixtures for this package's tests (not exported from index.ts): an
// engine over a fresh scratch directory, and data files written by
// @floe/iceberg's own writer, as the roller writes them today.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeParquetDataFile, type Schema } from '@floe/iceberg';
import { openEngine, type Engine } from './engine.js';
import type { DataFileInput } from './rewrite.js';

export const schema: Schema = {
  type: 'struct',
  'schema-id': 0,
  fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'category', required: false, type: 'string' },
    { id: 3, name: 'ts', required: false, type: 'timestamptz' },
    { id: 4, name: 'amount', required: false, type: 'decimal(12,2)' },
    { id: 5, name: 'score', required: false, type: 'double' },
    { id: 6, name: 'qty', required: false, type: 'int' },
    { id: 7, name: 'flag', required: false, type: 'boolean' },
    { id: 8, name: 'day', required: false, type: 'date' },
    { id: 9, name: 'uid', required: false, type: 'uuid' },
    { id: 10, name: 'blob', required: false, type: 'binary' },
    { id: 11, name: 'loc', required: false, type: { type: 'struct', fields: [
      { id: 12, name: 'lat', required: true, type: 'double' },
      { id: 13, name: 'place', required: false, type: { type: 'struct', fields: [
        { id: 14, name: 'city', required: false, type: 'string' },
      ] } },
    ] } },
    { id: 15, name: 'tags', required: false, type: { type: 'list', 'element-id': 16, 'element-required': false, element: 'string' } },
    { id: 17, name: 'attrs', required: false, type: {
      type: 'map', 'key-id': 18, key: 'string', 'value-id': 19, 'value-required': false, value: 'long',
    } },
    { id: 20, name: 'local_ts', required: false, type: 'timestamp' },
    { id: 21, name: 'at', required: false, type: 'time' },
    { id: 22, name: 'big', required: false, type: 'decimal(30,4)' },
    { id: 23, name: 'ratio', required: false, type: 'float' },
  ],
};

const CATEGORIES = ['alpha', 'beta', 'gamma', 'delta', 'a much longer category name than sixteen code points ✓'];

/** Row `i`: every column varies with i; some nulls; never a NaN (DuckDB keeps no min/max beside one). */
export function row(i: number): Record<string, unknown> {
  const n = BigInt(i);
  return {
    id: n,
    category: i % 7 === 3 ? null : CATEGORIES[i % CATEGORIES.length],
    ts: 1_700_000_000_000_000n + n * 1_000_003n,
    amount: i % 11 === 0 ? null : `${(i % 5000) - 2500}.${String(i % 100).padStart(2, '0')}`,
    score: i % 13 === 0 ? null : (i % 997) / 7 - 50,
    qty: i % 2 ? i % 1000 : -(i % 1000),
    flag: i % 5 === 0 ? null : i % 3 === 0,
    day: 19_000 + (i % 400),
    uid: `${(i % 65536).toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
    blob: i % 9 === 0 ? null : new Uint8Array([i & 0xff, (i >> 8) & 0xff, 0x5c, 0]),
    loc: i % 17 === 0 ? null : { lat: (i % 180) - 90.5, place: i % 4 === 0 ? null : { city: `city-${i % 97}` } },
    tags: i % 6 === 0 ? null : [`t${i % 3}`, null, `u${i % 5}`],
    attrs: i % 8 === 0 ? null : new Map([[`k${i % 4}`, n * 3n]]),
    local_ts: 1_600_000_000_000_000n - n * 7n,
    at: BigInt(i % 86_400) * 1_000_000n + 123n,
    big: i % 10 === 0 ? null : `${i * 1_000_000_007}.1234`,
    ratio: i % 4 === 0 ? -0 : i % 19 === 0 ? null : (i % 300) / 8,
  };
}

export interface Scratch {
  engine: Engine;
  dir: string;
  close(): void;
}

export async function openScratch(): Promise<Scratch> {
  const dir = mkdtempSync(join(tmpdir(), 'floe-engine-'));
  const engine = await openEngine({ scratchDir: join(dir, 'scratch'), memoryLimit: '512MB', threads: 2 });
  return {
    engine,
    dir,
    close() {
      engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `files` data files of `rowsPerFile` rows each (ids from 0), under `<scratch>/<sub>/`, named s3://…/data/<n>.parquet. */
export function writeDataFiles(
  scratchDir: string, sub: string, files: number, rowsPerFile: number,
  { rowOf = row, schema: s = schema, rowGroupSize }: { rowOf?: (i: number) => Record<string, unknown>; schema?: Schema; rowGroupSize?: number } = {},
): DataFileInput[] {
  const dir = join(scratchDir, sub);
  mkdirSync(dir, { recursive: true });
  return Array.from({ length: files }, (_, f) => {
    const rows = Array.from({ length: rowsPerFile }, (_, k) => rowOf(f * rowsPerFile + k));
    const localPath = join(dir, `in-${f}.parquet`);
    writeFileSync(localPath, writeParquetDataFile({ schema: s, rows, rowGroupSize }).bytes);
    return { localPath, filePath: `s3://t-bucket/ns/tbl/data/${sub}-${f}.parquet` };
  });
}

/** Row count and an order-free checksum of every column of the rows in `paths`. */
export async function checksum(engine: Engine, paths: readonly string[]): Promise<{ rows: bigint; sum: bigint }> {
  const list = paths.map((p) => `'${p}'`).join(', ');
  const columns = schema.fields.map((f) => `"${f.name}"`).join(', ');
  const [r] = await engine.query(`SELECT count(*) AS n, sum(hash(${columns}))::HUGEINT AS s FROM read_parquet([${list}])`);
  return { rows: r.n as bigint, sum: r.s as bigint };
}
