import { mapLines, mappedRows, type MappedRows, type SchemaField } from './rows';

/** The mapped columns read back row by row. */
function rowsOf(m: MappedRows): Array<Record<string, unknown>> {
  return Array.from({ length: m.count }, (_, i) => Object.fromEntries(m.fields.map((f) => [f.name, m.columns[f.name][i]])));
}

function map(fields: SchemaField[], batchId: string, receivedAt: bigint, lines: string[]): MappedRows {
  const out = mappedRows(fields);
  mapLines(out, batchId, receivedAt, lines.join('\n'));
  return out;
}

const fields = [
  { id: 1, name: 'id', required: true, type: 'long' },
  { id: 2, name: 'msg', required: false, type: 'string' },
  { id: 3, name: 'at', required: false, type: 'timestamptz' },
  { id: 4, name: '__ingest_ts', required: false, type: 'timestamptz' },
];

test('lines become rows by column name; misfits become rejects with reasons', () => {
  const out = map(fields, 'b1', 1_700_000_000_000_000n, [
    '{"id": 1234567890123456789, "msg": "big", "extra": 1}',
    '{"id": 2, "at": "2026-01-02T03:04:05Z"}',
    '{"msg": "no id"}',
    '{"id": "seven"}',
    '{"id": 5, "msg": 5}',
    '[1,2]',
    '',
  ]);
  expect(rowsOf(out)).toEqual([
    { id: 1234567890123456789n, msg: 'big', at: null, __ingest_ts: 1_700_000_000_000_000n },
    { id: 2n, msg: null, at: 1_767_323_045_000_000n, __ingest_ts: 1_700_000_000_000_000n },
  ]);
  expect(out.rejects.map((r) => [r.line, r.reason])).toEqual([
    [3, 'required column id is missing'],
    [4, expect.stringMatching(/^column id \(long\): /)],
    [5, expect.stringMatching(/^column msg \(string\): /)],
    [6, 'not a JSON object'],
  ]);
  expect(out.rejects[0]).toMatchObject({ batch_id: 'b1', raw: '{"msg": "no id"}' });
});

test('strings are read as the column type: CSV and form values fit typed columns', () => {
  const typed = [
    { id: 1, name: 'n', required: true, type: 'long' },
    { id: 2, name: 't', required: false, type: 'double' },
    { id: 3, name: 'on', required: false, type: 'boolean' },
    { id: 4, name: 's', required: false, type: 'string' },
  ];
  const out = map(typed, 'b2', 0n, [
    '{"n": "42", "t": "21.5", "on": "true", "s": ""}',
    '{"n": "7", "t": "", "on": "0", "s": "007"}',
    '{"n": "", "t": "1"}',
    '{"n": "1", "t": "warm"}',
    '{"n": "1", "on": "yes"}',
  ]);
  expect(rowsOf(out)).toEqual([
    { n: 42n, t: 21.5, on: true, s: '' },
    { n: 7n, t: null, on: false, s: '007' },
  ]);
  expect(out.rejects.map((r) => [r.line, r.reason])).toEqual([
    [3, 'required column n is empty'],
    [4, 'column t (double): expected number, got "warm"'],
    [5, 'column on (boolean): expected boolean, got "yes"'],
  ]);
});

test('every column stays as long as the rows, whatever lines were refused between them', () => {
  const out = map(fields, 'b3', 5n, ['{"id": 1}', '{"id": "x", "msg": "refused after msg was read"}', '{"id": 2, "msg": "m"}']);
  expect(out.count).toBe(2);
  for (const f of fields) expect(out.columns[f.name]).toHaveLength(2);
  expect(out.columns.msg).toEqual([null, 'm']);
});

test('an integer past 2^53 is read without loss, also inside a struct; a nested value that does not fit is refused for its own row', () => {
  const nested = [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'pos', required: false, type: { type: 'struct', fields: [{ id: 3, name: 'seq', required: true, type: 'long' }] } },
    { id: 4, name: 'tags', required: false, type: { type: 'list', 'element-id': 5, element: 'string', 'element-required': false } },
  ];
  const out = map(nested, 'b4', 0n, [
    '{"id": 9007199254740993, "pos": {"seq": 9007199254740995}, "tags": ["a", null]}',
    '{"id": 1, "pos": {"seq": "not a number"}}',
    '{"id": 2, "pos": {}}',
    '{"id": 3, "tags": "a"}',
    '{"id": 4, "pos": null}',
  ]);
  expect(rowsOf(out)).toEqual([
    { id: 9007199254740993n, pos: { seq: 9007199254740995n }, tags: ['a', null] },
    { id: 4n, pos: null, tags: null },
  ]);
  expect(out.rejects.map((r) => [r.line, r.reason])).toEqual([
    [2, expect.stringMatching(/^column pos\.seq \(long\): expected 64-bit integer/)],
    [3, 'column pos.seq is required'],
    [4, 'column tags must be an array'],
  ]);
});
