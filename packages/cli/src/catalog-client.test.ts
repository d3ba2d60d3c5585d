import { currentSnapshotIdOf, icebergEnvelope, parseTableName } from './catalog-client';
import { CliError, EXIT_USAGE } from './errors';

test('namespace.table: the last dot ends the namespace; a name without one is a usage error', () => {
  expect(parseTableName('demo.events')).toEqual({ namespace: ['demo'], name: 'events' });
  expect(parseTableName('a.b.events')).toEqual({ namespace: ['a', 'b'], name: 'events' });
  for (const bad of ['events', '.events', 'demo.', 'a..b']) {
    expect(() => parseTableName(bad)).toThrow(CliError);
    try { parseTableName(bad); } catch (err) { expect((err as CliError).exitCode).toBe(EXIT_USAGE); }
  }
});

test('the current snapshot id is read from the text, exact past 2^53; -1 and null are none', () => {
  expect(currentSnapshotIdOf('{"metadata":{"current-snapshot-id": 9223372036854775807,"snapshots":[{"snapshot-id":1}]}}')).toBe('9223372036854775807');
  expect(currentSnapshotIdOf('{"metadata":{"current-snapshot-id":-1}}')).toBeNull();
  expect(currentSnapshotIdOf('{"metadata":{"current-snapshot-id":null}}')).toBeNull();
  expect(currentSnapshotIdOf('{"metadata":{}}')).toBeNull();
});

test("the Iceberg error model reads as an envelope whose code is the exception's type", () => {
  expect(icebergEnvelope({ error: { message: 'Table does not exist: a.b', type: 'NoSuchTableException', code: 404, request_id: 'r1' } }))
    .toEqual({ code: 'NoSuchTableException', message: 'Table does not exist: a.b', request_id: 'r1' });
  expect(icebergEnvelope({ error: 'invalid_client', error_description: 'x' })).toBeNull();
  expect(icebergEnvelope(null)).toBeNull();
});
