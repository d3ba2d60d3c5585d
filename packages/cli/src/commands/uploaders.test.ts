import { EXIT_USAGE } from '../errors';
import { NO_SERVER, runFloe } from '../test-io';
import { parseTime } from './uploaders';

test('--expires-at takes ISO 8601 times and sends them in UTC', () => {
  expect(parseTime('2026-12-31')).toBe('2026-12-31T00:00:00.000Z');
  expect(parseTime('2026-12-31T18:00:00+01:00')).toBe('2026-12-31T17:00:00.000Z');
  for (const bad of ['tomorrow', '1h', '12/31/2026', '2026-02-30x']) expect(() => parseTime(bad)).toThrow();
});

test('usage errors exit 2 before any call', async () => {
  const floe = (argv: string[]) => runFloe(argv, { env: NO_SERVER });
  expect((await floe(['uploaders', 'create', 'lake'])).code).toBe(EXIT_USAGE);
  expect((await floe(['uploaders', 'create', 'lake', 'cam-1', '--expires-at', 'tomorrow'])).code).toBe(EXIT_USAGE);
  expect((await floe(['uploaders', 'revoke', 'lake', 'cam-1'])).code).toBe(EXIT_USAGE); // not confirmed off a terminal
});
