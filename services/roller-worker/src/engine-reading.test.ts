// The roll's two readings of a batch held equal: for every column type and
// every form of value here (the common ones, the edge ones, the wrong ones),
// a line the engine reads in SQL (packages/engine ndjson-read.ts) is one the
// JavaScript reading (packages/ingest rows.ts, the contract) accepts, with
// the same value in the written Parquet; every other line the engine hands
// back to the JavaScript reading. And the common forms are read in SQL, so
// the fast path is taken where it should be.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine, type Engine, type NdjsonLoad } from '@floe/engine';
import type { IcebergType, Schema } from '@floe/iceberg';
import { mapLines, mappedRows, type SchemaField } from '@floe/ingest';

let engine: Engine;
let n = 0;
beforeAll(async () => {
  engine = await openEngine({ scratchDir: mkdtempSync(join(tmpdir(), 'floe-reading-')), memoryLimit: '512MB', threads: 2 });
});
afterAll(() => {
  const dir = engine.scratchDir;
  engine.close();
  rmSync(dir, { recursive: true, force: true });
});

const schemaOf = (type: IcebergType, required = false): Schema => ({ type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'c', required, type }] });

/** The line as the engine reads it: its value in the written file, or 'left' when handed back. */
async function sqlReading(schema: Schema, line: string): Promise<unknown> {
  const path = join(engine.scratchDir, `line-${n++}.ndjson`);
  writeFileSync(path, `${line}\n`);
  return engine.loadNdjson({ schema }, async (load) => {
    if ((await load.addFiles([{ localPath: path, stampMicros: 0n }])).length) return 'left';
    return writtenValue(load);
  });
}

/** The line as the JavaScript reading takes it: its value written through the engine's appender, or its reject reason. */
async function jsReading(schema: Schema, line: string): Promise<unknown> {
  const mapped = mappedRows(schema.fields as SchemaField[]);
  mapLines(mapped, 'b', 0n, line);
  if (mapped.rejects.length) return { rejected: mapped.rejects[0].reason };
  return engine.loadNdjson({ schema }, async (load) => {
    await load.appendRows(mapped.columns, mapped.count);
    return writtenValue(load);
  });
}

async function writtenValue(load: NdjsonLoad): Promise<unknown> {
  const files = await load.writeParquet({ outputDir: join(engine.scratchDir, `out-${n++}`), prefix: 'p', targetFileSizeBytes: 1 << 20 });
  expect(files).toHaveLength(1);
  expect(files[0].stats.record_count).toBe(1n);
  const [row] = await engine.readRows(files[0].localPath);
  return row.c;
}

/** Per type: values the SQL reading must take, and values it may leave (each checked against the JavaScript reading either way). */
const cases: Array<{ type: IcebergType; sql: string[]; other: string[] }> = [
  { type: 'long', sql: ['1', '-0', '0', '42', '"42"', '9007199254740993', '-123456789012345678', 'null', '""'],
    other: ['9223372036854775807', '9223372036854775808', '1.0', '1.5', '1e2', '"1e2"', '" 42"', '"007"', 'true', '{"a":1}', '[1]'] },
  { type: 'int', sql: ['1', '2147483647', '-2147483648', '"12"', 'null'], other: ['2147483648', '1.0', '"0x10"', '"1e3"', '12.5'] },
  { type: 'double', sql: ['1.5', '-0.0', '0.1', '1E-5', '"2.5"', '123456789012345678901234567890', '1e99', '-7'],
    other: ['1e300', '"NaN"', '"Infinity"', '"1e400"', '"abc"', 'true', '" 1"', '1e-320'] },
  { type: 'float', sql: ['1.5', '0.1', '"0.1"', '1e-50', '3.4028234663852886e38', '16777217'], other: ['3.5e38', '"x"', '3.4028235677973366e38'] },
  { type: 'decimal(10,2)', sql: ['1.5', '9.99', '"9.99"', '-0.00', '100', '12345678.9', '0.07'],
    other: ['1.005', '"1.005"', '123456789.12', '1e2', '"abc"', '"+1"', '" 1"'] },
  { type: 'decimal(30,4)', sql: ['1.5', '"12345678901.1234"'], other: ['"12345678901234567890.1234"', '1.23456'] },
  { type: 'boolean', sql: ['true', 'false', '"true"', '"TRUE"', '"1"', '"0"', '"False"', '""', 'null'], other: ['" true"', '1', '0', '"yes"', '[]'] },
  { type: 'string', sql: ['"a"', '"a\\"b"', '"é"', '"\\u00e9"', '""', '"\\ud83d\\ude00"', '"line\\nbreak"', '"back\\\\slash"'],
    other: ['5', 'true', '{"a":"b"}', '"\\ud800"'] },
  { type: 'binary', sql: ['"AAEC"', '"AAE="', '"AA=="', '""', '"+/+/"'], other: ['"!!"', '"AAE"', '5', '"AA==AA=="'] },
  { type: 'date', sql: ['"2024-02-29"', '"2026-11-27"'], other: ['"2023-02-29"', '"2024-01-01T10:00:00Z"', '19000', '"0999-01-01"', '"abc"', '"2024-13-01"'] },
  { type: 'time', sql: ['"12:30"', '"12:30:15.5"', '"23:59:59.999999"', '"00:00:00"'], other: ['"24:00"', '"25:00"', '3600000000', '"12:30:15.1234567"', '"1:30"', '-1'] },
  { type: 'timestamptz', sql: ['"2026-11-27T10:00:00Z"', '"2026-11-27T10:00:00.123456Z"', '"2024-02-29T23:59:59.5Z"'],
    other: ['"2026-11-27T10:00:00.1234567Z"', '"2026-02-30T00:00:00Z"', '"2026-11-27 10:00:00"', '"2026-11-27T10:00:00+01:00"', '1764237600000000', '"abc"', '"0999-01-01T00:00:00Z"'] },
  { type: 'timestamp', sql: ['"2026-11-27T10:00:00Z"', '"2026-11-27T10:00:00.25Z"'], other: ['"2026-11-27T10:00:00"', '"2026-11-27T10:00:00+01:00"', '1764237600000000'] },
  { type: 'timestamp_ns', sql: [], other: ['"2026-11-27T10:00:00.123456789Z"', '"2026-11-27T10:00:00Z"', '1764237600000000123', '"x"'] },
  { type: 'uuid', sql: ['"123e4567-e89b-12d3-a456-426614174000"', '"123E4567-E89B-12D3-A456-426614174000"'], other: ['"123e4567e89b12d3a456426614174000"', '"xyz"', '5'] },
  { type: { type: 'struct', fields: [{ id: 2, name: 'a', required: false, type: 'long' }, { id: 3, name: 'b', required: false, type: 'string' }] }, sql: ['null'],
    other: ['{"a":1,"b":"x"}', '{"a":"x"}', '[1]', '{}'] },
  { type: { type: 'list', 'element-id': 2, 'element-required': false, element: 'long' }, sql: ['null'], other: ['[1,2]', '[]', '[1,"x"]', '5'] },
  { type: { type: 'map', 'key-id': 2, key: 'string', 'value-id': 3, 'value-required': false, value: 'long' }, sql: ['null'], other: ['{"a":1}', '{}', '{"a":"x"}'] },
];

describe.each(cases.map((c) => ({ ...c, name: typeof c.type === 'string' ? c.type : c.type.type })))('a $name column', ({ type, sql, other }) => {
  const schema = schemaOf(type);
  test.each([...sql.map((v) => [v, true] as const), ...other.map((v) => [v, false] as const)])('%s', async (value, mustBeSql) => {
    const line = `{"c":${value},"other":1}`;
    const [bySql, byJs] = await Promise.all([sqlReading(schema, line), jsReading(schema, line)]);
    if (mustBeSql) expect(bySql).not.toBe('left');
    if (bySql !== 'left') expect(bySql).toEqual(byJs);
  });
});

test('required columns: null, missing and "" are left to the JavaScript reading, which rejects them with its reason', async () => {
  for (const [type, line, reason] of [
    ['long', '{"c":null}', 'required column c is missing'],
    ['long', '{}', 'required column c is missing'],
    ['long', '{"c":""}', 'required column c is empty'],
    ['string', '{}', 'required column c is missing'],
  ] as const) {
    const schema = schemaOf(type, true);
    expect(await sqlReading(schema, line)).toBe('left');
    expect(await jsReading(schema, line)).toEqual({ rejected: reason });
  }
  expect(await sqlReading(schemaOf('string', true), '{"c":""}')).toBe('');
});

test('a line with a key twice is left to the JavaScript reading, which keeps the last (as JSON.parse does)', async () => {
  expect(await sqlReading(schemaOf('long'), '{"c":1,"c":2}')).toBe('left');
  expect(await jsReading(schemaOf('long'), '{"c":1,"c":2}')).toBe(2n);
});

test('a line that is not an object, or not JSON, is left to the JavaScript reading', async () => {
  for (const line of ['[1,2]', '5', '{"c":1', 'nope']) expect(await sqlReading(schemaOf('long'), line)).toBe('left');
});

test('a roll\'s files are read in SQL in one statement: each file\'s rows stamped with its own time, in file order', async () => {
  const schema: Schema = { type: 'struct', 'schema-id': 1, fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'msg', required: false, type: 'string' },
    { id: 3, name: 'ts', required: false, type: 'timestamptz' },
    { id: 4, name: '__ingest_ts', required: false, type: 'timestamptz' },
  ] };
  const files = [0, 1, 2].map((f) => {
    const localPath = join(engine.scratchDir, `stamped-${f}.ndjson`);
    writeFileSync(localPath, Array.from({ length: 3 }, (_, i) => `{"id":${f * 10 + i},"msg":"m","ts":"2026-11-27T10:00:0${i}Z","__ingest_ts":"1999-01-01T00:00:00Z"}\n`).join(''));
    return { localPath, stampMicros: 1_795_000_000_000_000n + BigInt(f) };
  });
  const rows = await engine.loadNdjson({ schema, stamped: '__ingest_ts' }, async (load) => {
    expect(await load.addFiles(files)).toEqual([]);
    const [file] = await load.writeParquet({ outputDir: join(engine.scratchDir, `out-${n++}`), prefix: 'p', targetFileSizeBytes: 1 << 20 });
    return engine.readRows(file.localPath);
  });
  expect(rows.map((r) => [r.id, r.__ingest_ts])).toEqual([0, 1, 2].flatMap((f) => [0, 1, 2].map((i) => [BigInt(f * 10 + i), 1_795_000_000_000_000n + BigInt(f)])));
});
