import { readOnlyStatement } from './query';

// The comparisons a planner may prune by: only those certain to hold for
// every row the statement reads of its one table.

const of = async (sql: string) => (await readOnlyStatement(sql)).predicates;

test('a WHERE of comparisons with constants on the one table, either side, qualified or not', async () => {
  expect(await of("SELECT id FROM q.t x WHERE x.id >= 5 AND msg = 'a' AND day = DATE '2026-01-01' AND 3 > id AND d < 2.5e0")).toEqual({
    'q.t': [
      { column: 'id', op: '>=', value: { kind: 'number', value: 5 } },
      { column: 'msg', op: '=', value: { kind: 'string', value: 'a' } },
      { column: 'day', op: '=', value: { kind: 'date', value: '2026-01-01' } },
      { column: 'id', op: '<', value: { kind: 'number', value: 3 } },
      { column: 'd', op: '<', value: { kind: 'number', value: 2.5 } },
    ],
  });
  expect(await of('SELECT count(*) FROM q.t WHERE t.id = 7 GROUP BY id')).toEqual({ 'q.t': [{ column: 'id', op: '=', value: { kind: 'number', value: 7 } }] });
});

test.each([
  ['an OR', 'SELECT * FROM q.t WHERE id = 1 OR id = 2'],
  ['a join', 'SELECT * FROM q.t a JOIN q.u b ON a.id = b.id WHERE a.id = 1'],
  ['the table named twice', 'SELECT * FROM q.t WHERE id = 1 AND id IN (SELECT id FROM q.t)'],
  ['a union', 'SELECT * FROM q.t WHERE id = 1 UNION ALL SELECT * FROM q.t'],
  ['a column of another qualifier', 'SELECT * FROM q.t WHERE other.id = 1'],
  ['a constant beyond 2^53', 'SELECT * FROM q.t WHERE id = 9007199254740993'],
  ['a decimal', 'SELECT * FROM q.t WHERE id > 1.5'],
  ['an expression', 'SELECT * FROM q.t WHERE id + 1 = 2'],
  ['NULL', 'SELECT * FROM q.t WHERE id = NULL'],
  ['a CTE', 'WITH x AS (SELECT * FROM q.t) SELECT * FROM x WHERE id = 1'],
])('nothing to prune by with %s', async (_, sql) => {
  expect(await of(sql)).toEqual({});
});
