import { expiredKeys } from './reject-ageing';

test('reject files older than 7 days are expired; younger ones stay', () => {
  const now = Date.parse('2026-11-23T00:00:00Z');
  const day = 86_400_000;
  expect(expiredKeys([
    { Key: 'old', LastModified: new Date(now - 8 * day) },
    { Key: 'edge', LastModified: new Date(now - 7 * day + 1000) },
    { Key: 'new', LastModified: new Date(now - day) },
    { Key: 'undated' },
  ], now)).toEqual(['old']);
});
