import { ROWS_SHOWN, cell, renderRows } from './result-table';

const columns = [{ name: 'id' }, { name: 'msg' }];

test('cells: NULL, text as it is, other values as JSON; pipes and line breaks escaped; long values cut', () => {
  expect([null, undefined, 'a b', '7', 7, true, { k: [1] }].map(cell)).toEqual(['NULL', 'NULL', 'a b', '7', '7', 'true', '{"k":[1]}']);
  expect(cell('a|b\nc\\d')).toBe('a\\|b\\nc\\\\d');
  expect(cell('x'.repeat(100))).toBe(`${'x'.repeat(59)}…`);
});

test('a header, a rule, one line a row in the columns\' order', () => {
  expect(renderRows(columns, [{ msg: 'hello', id: '1' }, { id: '2', msg: null }])).toBe([
    '| id | msg |', '| --- | --- |', '| 1 | hello |', '| 2 | NULL |',
  ].join('\n'));
  expect(renderRows(columns, [])).toBe('(no rows)');
});

test('past the rows it shows, a line saying how many there are and where they all are', () => {
  const rows = Array.from({ length: ROWS_SHOWN + 7 }, (_, i) => ({ id: i, msg: 'm' }));
  const lines = renderRows(columns, rows).split('\n');
  expect(lines).toHaveLength(2 + ROWS_SHOWN + 1);
  expect(lines.at(-2)).toBe(`| ${ROWS_SHOWN - 1} | m |`);
  expect(lines.at(-1)).toBe(`(the first ${ROWS_SHOWN} of ${ROWS_SHOWN + 7} rows; every row is in the structured content)`);
});
