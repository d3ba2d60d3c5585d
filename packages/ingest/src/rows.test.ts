import { mapLines, type MappedRows } from './rows';

const fields = [
  { id: 1, name: 'id', required: true, type: 'long' },
  { id: 2, name: 'msg', required: false, type: 'string' },
  { id: 3, name: 'at', required: false, type: 'timestamptz' },
  { id: 4, name: '__ingest_ts', required: false, type: 'timestamptz' },
];

test('lines become rows by column name; misfits become rejects with reasons', () => {
  const out: MappedRows = { rows: [], rejects: [] };
  mapLines(fields, 'b1', 1_700_000_000_000_000n, [
    '{"id": 1234567890123456789, "msg": "big", "extra": 1}',
    '{"id": 2, "at": "2026-01-02T03:04:05Z"}',
    '{"msg": "no id"}',
    '{"id": "seven"}',
    '{"id": 5, "msg": 5}',
    '[1,2]',
    '',
  ].join('\n'), out);
  expect(out.rows).toEqual([
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
  const out: MappedRows = { rows: [], rejects: [] };
  mapLines(typed, 'b2', 0n, [
    '{"n": "42", "t": "21.5", "on": "true", "s": ""}',
    '{"n": "7", "t": "", "on": "0", "s": "007"}',
    '{"n": "", "t": "1"}',
    '{"n": "1", "t": "warm"}',
    '{"n": "1", "on": "yes"}',
  ].join('\n'), out);
  expect(out.rows).toEqual([
    { n: 42n, t: 21.5, on: true, s: '' },
    { n: 7n, t: null, on: false, s: '007' },
  ]);
  expect(out.rejects.map((r) => [r.line, r.reason])).toEqual([
    [3, 'required column n is empty'],
    [4, 'column t (double): expected number, got "warm"'],
    [5, 'column on (boolean): expected boolean, got "yes"'],
  ]);
});
