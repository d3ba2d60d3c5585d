import { EXIT_USAGE } from '../errors';
import { NO_SERVER, runFloe } from '../test-io';
import { limitRow, parseDays } from './usage';

const base = { current: 0, value: 0, headroom: 0, over_limit: false, enforcement: '' };

test('limit rows: bytes readable on a terminal, exact for a pipe; the state', () => {
  const storage = { ...base, current: 1_500_000, value: 5_000_000_000, headroom: 4_998_500_000, measured_at: null, stale_after: null, unmetered: false, unmetered_catalogs: 0 };
  expect(limitRow('storage_bytes', storage, true)).toEqual(['storage_bytes', '1.5 MB', '5.0 GB', '5.0 GB', '']);
  expect(limitRow('storage_bytes', storage, false)).toEqual(['storage_bytes', '1500000', '5000000000', '4998500000', '']);
  expect(limitRow('storage_bytes', { ...storage, unmetered: true }, true)[4]).toMatch(/unmetered/);
  expect(limitRow('projects', { ...base, current: 21, value: 20, headroom: 0, over_limit: true }, true)).toEqual(['projects', '21', '20', '0', 'over the limit']);
});

test('--days is 1 to 30', async () => {
  expect(parseDays('1')).toBe(1);
  expect(parseDays('30')).toBe(30);
  for (const bad of ['0', '31', '7.5', 'week']) expect(() => parseDays(bad)).toThrow();
  expect((await runFloe(['usage', '--days', '0'], { env: NO_SERVER })).code).toBe(EXIT_USAGE);
});
