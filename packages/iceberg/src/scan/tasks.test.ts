import type { Schema, TableMetadata } from '../metadata/model.js';
import type { LiveFile } from '../files/live-files.js';
import { FileContent } from '../files/manifest.js';
import { toBinary } from '../files/values.js';
import { scanTasks, scanTasksJson } from './tasks.js';
import { toJsonValue } from './json-values.js';

// Which deletes each data file's task carries, and the REST shapes they are written in.

const schema = {
  type: 'struct', 'schema-id': 0,
  fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'day', required: false, type: 'date' }],
} as unknown as Schema;
const meta = {
  'format-version': 2, schemas: [schema], 'current-schema-id': 0,
  'partition-specs': [
    { 'spec-id': 0, fields: [{ 'source-id': 2, 'field-id': 1000, name: 'day_day', transform: 'day' }] },
    { 'spec-id': 1, fields: [] },
  ],
  'default-spec-id': 0,
} as unknown as TableMetadata;

const live = (path: string, seq: bigint, o: Partial<LiveFile['file']> = {}, specId = 0): LiveFile => ({
  file: { content: FileContent.DATA, file_path: path, file_format: 'PARQUET', partition: specId === 0 ? { day_day: 20_000 } : {}, record_count: 10n, file_size_in_bytes: 100n, ...o },
  specId, sequenceNumber: seq, firstRowId: null,
});

const a = live('s3://b/t/data/a.parquet', 1n);
const b = live('s3://b/t/data/b.parquet', 3n);
const other = live('s3://b/t/data/c.parquet', 1n, { partition: { day_day: 20_001 } });
const namedToA = live('s3://b/t/data/pos-a.parquet', 2n, { content: FileContent.POSITION_DELETES, referenced_data_file: a.file.file_path });
const partitionPositions = live('s3://b/t/data/pos.parquet', 2n, { content: FileContent.POSITION_DELETES });
const vectorOfB = live('s3://b/t/data/dv.puffin', 3n, { content: FileContent.POSITION_DELETES, file_format: 'PUFFIN', referenced_data_file: b.file.file_path, content_offset: 4n, content_size_in_bytes: 40n });
const equality = live('s3://b/t/data/eq.parquet', 2n, { content: FileContent.EQUALITY_DELETES, equality_ids: [1] });
const equalityEverywhere = live('s3://b/t/data/eq-all.parquet', 2n, { content: FileContent.EQUALITY_DELETES, equality_ids: [1] }, 1);

const names = (fs: LiveFile[]) => fs.map((f) => f.file.file_path.split('/').at(-1));

test('each data file carries the deletes that apply to it, by name, partition and sequence number', () => {
  const tasks = scanTasks(meta, [a, b, other], [namedToA, partitionPositions, vectorOfB, equality, equalityEverywhere]);
  expect(tasks.map((t) => [names([t.data])[0], names(t.deletes)])).toEqual([
    ['a.parquet', ['pos-a.parquet', 'pos.parquet', 'eq.parquet', 'eq-all.parquet']],
    // b is newer than the position deletes of its partition (2 < 3) and the equality deletes (2 <= 3); its own vector, at 3, applies.
    ['b.parquet', ['dv.puffin']],
    ['c.parquet', ['eq-all.parquet']],
  ]);
});

test('the REST shapes: content, lower-case format, partition by the spec, deletes listed once and referenced by index', () => {
  const tasks = scanTasks(meta, [a, b, other], [namedToA, vectorOfB, equalityEverywhere]);
  const json = scanTasksJson(tasks, { metadata: meta, schema, statsFieldIds: new Set() });
  expect(json['file-scan-tasks'][0]).toEqual({
    'data-file': { 'spec-id': 0, content: 'data', 'file-path': a.file.file_path, 'file-format': 'parquet', partition: ['2024-10-04'], 'file-size-in-bytes': 100n, 'record-count': 10n },
    'delete-file-references': [0, 1],
  });
  expect(json['file-scan-tasks'][2]).toEqual({ 'data-file': expect.objectContaining({ 'file-path': other.file.file_path }), 'delete-file-references': [1] });
  expect(json['delete-files']).toEqual([
    expect.objectContaining({ content: 'position-deletes', 'file-path': namedToA.file.file_path, 'referenced-data-file': a.file.file_path }),
    expect.objectContaining({ content: 'equality-deletes', 'spec-id': 1, partition: [], 'equality-ids': [1] }),
    expect.objectContaining({ content: 'position-deletes', 'file-format': 'puffin', 'content-offset': 4n, 'content-size-in-bytes': 40n }),
  ]);
});

test('column stats only for the fields asked for, bounds as JSON single values', () => {
  const withStats = live('s3://b/t/data/s.parquet', 1n, {
    value_counts: new Map([[1, 10n], [2, 10n]]), null_value_counts: new Map([[1, 0n], [2, 1n]]),
    lower_bounds: new Map([[1, toBinary('long', 5n)], [2, toBinary('date', 20_000)]]), upper_bounds: new Map([[1, toBinary('long', 9n)], [2, toBinary('date', 20_003)]]),
  });
  const [task] = scanTasksJson(scanTasks(meta, [withStats], []), { metadata: meta, schema, statsFieldIds: new Set([2]) })['file-scan-tasks'] as Array<{ 'data-file': Record<string, unknown> }>;
  expect(task['data-file']).toMatchObject({
    'value-counts': { keys: [2], values: [10n] }, 'null-value-counts': { keys: [2], values: [1n] },
    'lower-bounds': { keys: [2], values: ['2024-10-04'] }, 'upper-bounds': { keys: [2], values: ['2024-10-07'] },
  });
  const [none] = scanTasksJson(scanTasks(meta, [withStats], []), { metadata: meta, schema, statsFieldIds: new Set() })['file-scan-tasks'] as Array<{ 'data-file': Record<string, unknown> }>;
  expect(none['data-file']).not.toHaveProperty('value-counts');
});

test.each([
  ['date', 0, '1970-01-01'],
  ['time', 81_068_123_456n, '22:31:08.123456'],
  ['timestamp', 1_510_871_468_123_456n, '2017-11-16T22:31:08.123456'],
  ['timestamptz', -1n, '1969-12-31T23:59:59.999999+00:00'],
  ['timestamp_ns', 1_510_871_468_123_456_789n, '2017-11-16T22:31:08.123456789'],
  ['decimal(9,2)', 1420n, '14.20'],
  ['decimal(9,2)', -5n, '-0.05'],
  ['binary', new Uint8Array([0x78, 0x79, 0x7a]), '78797A'],
  ['long', 2n ** 60n, 2n ** 60n],
] as const)('JSON single value of %s', (type, v, expected) => {
  expect(toJsonValue(type, v as never)).toEqual(expected);
});
