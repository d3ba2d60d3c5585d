import type { Schema, TableMetadata } from '../metadata/model.js';
import type { LiveFile } from '../files/live-files.js';
import { toBinary } from '../files/values.js';
import { FieldResolver, ScanInputError, bindFilter } from './filter.js';
import { filesMayPass, manifestMayPass } from './prune.js';

// A planning request's filter, checked against the schema, and the files its
// certain conjuncts rule out.

const schema = {
  type: 'struct', 'schema-id': 0,
  fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'msg', required: false, type: 'string' },
    { id: 3, name: 'day', required: false, type: 'date' },
    { id: 4, name: 'f', required: false, type: 'float' },
    { id: 5, name: 'country', required: false, type: 'string' },
    { id: 6, name: 'loc', required: false, type: { type: 'struct', fields: [{ id: 7, name: 'lat', required: false, type: 'double' }] } },
    { id: 8, name: 'tags', required: false, type: { type: 'list', 'element-id': 9, element: 'string', 'element-required': false } },
  ],
} as unknown as Schema;
const meta = { 'partition-specs': [{ 'spec-id': 0, fields: [{ 'source-id': 5, 'field-id': 1000, name: 'country', transform: 'identity' }] }], 'default-spec-id': 0 } as unknown as TableMetadata;

function file(name: string, b: { id?: [bigint, bigint]; day?: [number, number]; f?: [number, number]; lat?: [number, number] }, country: string): LiveFile {
  const lower = new Map<number, Uint8Array>();
  const upper = new Map<number, Uint8Array>();
  const put = (fieldId: number, type: string, pair?: [unknown, unknown]) => {
    if (!pair) return;
    lower.set(fieldId, toBinary(type, pair[0] as never));
    upper.set(fieldId, toBinary(type, pair[1] as never));
  };
  put(1, 'long', b.id);
  put(3, 'date', b.day);
  put(4, 'float', b.f);
  put(7, 'double', b.lat);
  return {
    file: { content: 0, file_path: `s3://b/t/data/${name}`, file_format: 'PARQUET', partition: { country }, record_count: 1n, file_size_in_bytes: 1n, lower_bounds: lower, upper_bounds: upper },
    specId: 0, sequenceNumber: 1n, firstRowId: null,
  } as LiveFile;
}

const files = [
  file('a', { id: [1n, 10n], day: [20_000, 20_010], f: [0.1, 0.5], lat: [10, 20] }, 'DE'),
  file('b', { id: [11n, 20n], day: [20_011, 20_020], f: [1, 2], lat: [30, 40] }, 'FR'),
];
const kept = (filter: unknown, caseSensitive = true) => {
  const bound = bindFilter(filter, new FieldResolver(schema, caseSensitive));
  return bound.matchesNothing ? [] : filesMayPass(meta, files, bound.bounds).map((f) => f.file.file_path.split('/').at(-1));
};
const ref = (name: string) => ({ type: 'reference', name });

test.each([
  ['eq on a long', { type: 'eq', left: ref('id'), right: 15 }, ['b']],
  ['lt, the deprecated term/value form', { type: 'lt', term: 'id', value: 11 }, ['a']],
  ['a literal on the left is flipped', { type: 'gt', left: 11, right: ref('id') }, ['a']],
  ['a typed literal object', { type: 'gt-eq', left: ref('id'), right: { type: 'literal', value: 11 } }, ['b']],
  ['a long given as text', { type: 'eq', left: ref('id'), right: '3' }, ['a']],
  ['a reference by id', { type: 'eq', left: { type: 'reference', id: 1 }, right: 3 }, ['a']],
  ['a date as ISO text', { type: 'eq', left: ref('day'), right: '2024-10-15' }, ['b']],
  ['a float bound compared as the float the literal binds to', { type: 'eq', left: ref('f'), right: 0.1 }, ['a']],
  ['a nested struct field', { type: 'gt', left: ref('loc.lat'), right: 25 }, ['b']],
  ['the identity partition', { type: 'eq', left: ref('country'), right: 'FR' }, ['b']],
  ['in, bare literals', { type: 'in', child: ref('id'), values: [2, 30] }, ['a']],
  ['in, typed literals', { type: 'in', term: 'country', values: { type: 'literals', values: ['DE'], 'data-type': 'string' } }, ['a']],
  ['and of two', { type: 'and', left: { type: 'gt', left: ref('id'), right: 5 }, right: { type: 'eq', left: ref('country'), right: 'DE' } }, ['a']],
  ['or prunes nothing', { type: 'or', left: { type: 'eq', left: ref('id'), right: 1 }, right: { type: 'eq', left: ref('id'), right: 2 } }, ['a', 'b']],
  ['not prunes nothing', { type: 'not', child: { type: 'eq', left: ref('id'), right: 1 } }, ['a', 'b']],
  ['not-eq prunes nothing', { type: 'not-eq', left: ref('id'), right: 1 }, ['a', 'b']],
  ['a list element prunes nothing', { type: 'eq', left: ref('tags.element'), right: 'x' }, ['a', 'b']],
  ['a function application prunes nothing', { type: 'eq', left: { type: 'apply', function: 'lower', arguments: [ref('msg')] }, right: 'x' }, ['a', 'b']],
  ['a transform term prunes nothing', { type: 'eq', term: { type: 'transform', transform: 'day', term: 'day' }, value: 3 }, ['a', 'b']],
  ['a string against a long prunes nothing', { type: 'eq', left: ref('id'), right: 'fifteen' }, ['a', 'b']],
  ['true', true, ['a', 'b']],
  ['false', false, []],
  ['the deprecated false object inside and', { type: 'and', left: { type: 'false' }, right: true }, []],
] as const)('%s', (_, filter, expected) => {
  expect(kept(filter)).toEqual(expected);
});

test('names match case-insensitively only when asked', () => {
  expect(kept({ type: 'eq', left: ref('ID'), right: 15 }, false)).toEqual(['b']);
  expect(() => kept({ type: 'eq', left: ref('ID'), right: 15 })).toThrow(new ScanInputError('Cannot find field "ID" in the scan\'s schema'));
});

test.each([
  ['an unknown field', { type: 'eq', left: ref('nope'), right: 1 }, /Cannot find field "nope"/],
  ['an unknown field id', { type: 'eq', left: { type: 'reference', id: 99 }, right: 1 }, /field id 99/],
  ['an unknown type', { type: 'between', left: ref('id'), right: 1 }, /Unknown filter expression type "between"/],
  ['and without right', { type: 'and', left: true }, /needs `left` and `right`/],
  ['a number', 7, /boolean or an object/],
  ['in without values', { type: 'in', child: ref('id') }, /needs `values`/],
  ['a unary without operand', { type: 'is-null' }, /missing its operand/],
  ['a field inside a function', { type: 'eq', left: { type: 'apply', function: 'f', arguments: [ref('nope')] }, right: 1 }, /Cannot find field "nope"/],
] as const)('refused: %s', (_, filter, message) => {
  expect(() => bindFilter(filter, new FieldResolver(schema, true))).toThrow(message);
});

test('deep nesting is refused, not walked', () => {
  let deep: unknown = true;
  for (let i = 0; i < 100; i++) deep = { type: 'not', child: deep };
  expect(() => bindFilter(deep, new FieldResolver(schema, true))).toThrow(/nested more than 64 levels/);
});

test('a data manifest whose identity-partition summary rules a bound out is skipped; without a summary it is read', () => {
  const manifest = (partitions: unknown) => ({ partition_spec_id: 0, partitions } as unknown as Parameters<typeof manifestMayPass>[1]);
  const summary = (lo: string | null, hi: string | null, containsNull = false) => [{
    contains_null: containsNull, contains_nan: null, lower_bound: lo === null ? null : toBinary('string', lo), upper_bound: hi === null ? null : toBinary('string', hi),
  }];
  const bounds = (filter: unknown) => bindFilter(filter, new FieldResolver(schema, true)).bounds;
  const isFR = bounds({ type: 'eq', left: ref('country'), right: 'FR' });
  expect(manifestMayPass(meta, manifest(summary('DE', 'DE')), isFR)).toBe(false);
  expect(manifestMayPass(meta, manifest(summary('DE', 'GB')), isFR)).toBe(true);
  expect(manifestMayPass(meta, manifest(summary(null, null, true)), isFR)).toBe(false);
  expect(manifestMayPass(meta, manifest(null), isFR)).toBe(true);
  // A bound on a column that is not a partition source says nothing about a manifest.
  expect(manifestMayPass(meta, manifest(summary('DE', 'DE')), bounds({ type: 'eq', left: ref('id'), right: 5 }))).toBe(true);
  expect(manifestMayPass(meta, manifest(summary('DE', 'DE')), bounds({ type: 'in', child: ref('country'), values: ['AT', 'FR'] }))).toBe(false);
});
