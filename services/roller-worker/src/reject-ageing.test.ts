import { expiredKeys } from './reject-ageing';

test('reject files older than 7 days are expired; younger ones stay', () => {
  const now = Date.parse('2026-11-23T00:00:00Z');
  const day = 86_400_000;
  expect(expiredKeys([
    { key: 'old', lastModified: new Date(now - 8 * day) },
    { key: 'edge', lastModified: new Date(now - 7 * day + 1000) },
    { key: 'new', lastModified: new Date(now - day) },
    { key: 'undated', lastModified: null },
  ], now)).toEqual(['old']);
});
