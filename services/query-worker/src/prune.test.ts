import { toBinary, type LiveFile, type Schema, type TableMetadata } from '@floe/iceberg';
import { prunedFiles } from './prune';

// Files whose bounds or identity partition rule out every row a statement's
// simple predicates keep are left out; anything uncertain stays.

const schema = {
  type: 'struct', 'schema-id': 0,
  fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'msg', required: false, type: 'string' },
    { id: 3, name: 'day', required: false, type: 'date' },
    { id: 4, name: 'd', required: false, type: 'double' },
    { id: 5, name: 'country', required: false, type: 'string' },
  ],
} as unknown as Schema;
const meta = { 'partition-specs': [{ 'spec-id': 0, fields: [{ 'source-id': 5, 'field-id': 1000, name: 'country', transform: 'identity' }] }], 'default-spec-id': 0 } as unknown as TableMetadata;

function file(name: string, b: { id?: [bigint, bigint]; msg?: [string, string]; day?: [number, number]; d?: [number, number] }, country?: string | null): LiveFile {
  const lower = new Map<number, Uint8Array>();
  const upper = new Map<number, Uint8Array>();
  const put = (fieldId: number, type: string, pair?: [unknown, unknown]) => {
    if (!pair) return;
    lower.set(fieldId, toBinary(type, pair[0] as never));
    upper.set(fieldId, toBinary(type, pair[1] as never));
  };
  put(1, 'long', b.id);
  put(2, 'string', b.msg);
  put(3, 'date', b.day);
  put(4, 'double', b.d);
  return {
    file: { content: 0, file_path: `s3://b/t/data/${name}`, file_format: 'PARQUET', partition: country === undefined ? {} : { country }, record_count: 1n, file_size_in_bytes: 1n, lower_bounds: lower, upper_bounds: upper },
    specId: 0, sequenceNumber: 1n, firstRowId: null,
  } as LiveFile;
}

const files = [
  file('a', { id: [1n, 10n], msg: ['apple', 'kiwi'], day: [20_000, 20_010], d: [-0, 1.5] }, 'DE'),
  file('b', { id: [11n, 20n], msg: ['lemon', 'zebra'], day: [20_011, 20_020], d: [2, 3] }, 'FR'),
  file('c', {}, 'DE'), // no bounds: always kept unless its partition rules it out
];
const names = (fs: LiveFile[]) => fs.map((f) => f.file.file_path.split('/').at(-1));
const num = (value: number) => ({ kind: 'number' as const, value });

test.each([
  ['id = 15', [{ column: 'id', op: '=', value: num(15) }], ['b', 'c']],
  ['id < 11', [{ column: 'id', op: '<', value: num(11) }], ['a', 'c']],
  ['id <= 11', [{ column: 'id', op: '<=', value: num(11) }], ['a', 'b', 'c']],
  ['id > 10', [{ column: 'id', op: '>', value: num(10) }], ['b', 'c']],
  ['ID >= 21 (case-insensitive)', [{ column: 'ID', op: '>=', value: num(21) }], ['c']],
  ["msg = 'banana'", [{ column: 'msg', op: '=', value: { kind: 'string', value: 'banana' } }], ['a', 'c']],
  ["day = DATE '2024-10-15' (day 20011)", [{ column: 'day', op: '=', value: { kind: 'date', value: '2024-10-15' } }], ['b', 'c']],
  ['d = 0 keeps a file whose lower bound is -0', [{ column: 'd', op: '=', value: num(0) }], ['a', 'c']],
  ["country = 'FR' by the identity partition", [{ column: 'country', op: '=', value: { kind: 'string', value: 'FR' } }], ['b']],
  ['two predicates together', [{ column: 'id', op: '>', value: num(5) }, { column: 'country', op: '=', value: { kind: 'string', value: 'DE' } }], ['a', 'c']],
  ['a column not in the schema', [{ column: 'nope', op: '=', value: num(1) }], ['a', 'b', 'c']],
  ['a string against a long column', [{ column: 'id', op: '=', value: { kind: 'string', value: '15' } }], ['a', 'b', 'c']],
] as const)('%s', (_, predicates, kept) => {
  expect(names(prunedFiles(meta, schema, files, predicates as never))).toEqual(kept);
});

test('nothing to prune by keeps every file', () => {
  expect(prunedFiles(meta, schema, files, undefined)).toBe(files);
  expect(prunedFiles(meta, schema, files, [])).toBe(files);
});
