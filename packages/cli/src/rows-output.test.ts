import { cellText, jsonValue, MAX_CELL, ndjsonLines, rowsTable } from './rows-output';
import type { Column } from './table-rows';

const columns: Column[] = [
  { id: 1, name: 'id', type: 'long' },
  { id: 2, name: 'msg', type: 'string' },
  { id: 3, name: 'price', type: 'decimal(10,2)' },
  { id: 4, name: 'day', type: 'date' },
];

test('the text table: column names over aligned cells, NULL for a null, decimals at their scale', () => {
  const rows = [
    { id: 1n, msg: 'hello', price: 12.5, day: new Date(Date.UTC(2024, 1, 29)) },
    { id: 22n, msg: null, price: 0.1 + 0.2, day: undefined },
  ];
  expect(rowsTable(columns, rows)).toBe([
    'id  msg    price  day',
    '1   hello  12.50  2024-02-29',
    '22  NULL   0.30   NULL',
  ].join('\n'));
});

test('a table with no rows is its header alone', () => {
  expect(rowsTable(columns, [])).toBe('id  msg  price  day');
});

test('cells stay on one line and are cut past MAX_CELL characters', () => {
  expect(cellText('a\nb\tc', 'string')).toBe('a\\nb\\tc');
  const long = cellText('x'.repeat(200), 'string');
  expect(long).toHaveLength(MAX_CELL);
  expect(long.endsWith('…')).toBe(true);
});

test('values by type: timestamps with and without a zone, time of day, uuid, bytes, nested', () => {
  const at = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6));
  expect(cellText(at, 'timestamptz')).toBe('2024-01-02T03:04:05.006Z');
  expect(cellText(at, 'timestamp')).toBe('2024-01-02T03:04:05.006');
  expect(cellText(3_723_000_001n, 'time')).toBe('01:02:03.000001');
  expect(cellText(Uint8Array.from(Buffer.from('0123456789abcdef0123456789abcdef', 'hex')), 'uuid')).toBe('01234567-89ab-cdef-0123-456789abcdef');
  expect(cellText(Uint8Array.from([0, 255]), 'fixed[2]')).toBe('0x00ff');
  expect(cellText(true, 'boolean')).toBe('true');
  const struct = { type: 'struct', fields: [{ id: 5, name: 'n', type: 'long' }, { id: 6, name: 'tags', type: { type: 'list', 'element-id': 7, element: 'string' } }] };
  expect(cellText({ n: 2n ** 60n, tags: ['a', null] }, struct)).toBe('{"n":"1152921504606846976","tags":["a",null]}');
});

test('JSON: a long is a number while exact and a string past 2^53', () => {
  expect(jsonValue(2n ** 53n - 1n, 'long')).toBe(9007199254740991);
  expect(jsonValue(2n ** 53n, 'long')).toBe('9007199254740992');
  expect(jsonValue(-(2n ** 63n), 'long')).toBe('-9223372036854775808');
  expect(jsonValue(Number.NaN, 'double')).toBe('NaN');
  expect(ndjsonLines(columns, [{ msg: 'hi', id: 7n, price: 19.99, day: null }, { id: 2n ** 62n, msg: 'a"b', price: null, day: null }])).toEqual([
    '{"id":7,"msg":"hi","price":19.99,"day":null}',
    '{"id":"4611686018427387904","msg":"a\\"b","price":null,"day":null}',
  ]);
});
