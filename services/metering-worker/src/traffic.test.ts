import { catalogTraffic, trafficWindowStart } from './traffic';

test('the window starts at the previous whole UTC hour', () => {
  expect(trafficWindowStart(new Date('2026-11-25T11:42:10Z')).toISOString()).toBe('2026-11-25T10:00:00.000Z');
  expect(trafficWindowStart(new Date('2026-11-25T00:00:00Z')).toISOString()).toBe('2026-11-24T23:00:00.000Z');
});

test('both buckets of a catalog sum per hour; other buckets and hours before the window are left out', () => {
  const h = (iso: string, requests: number, bytesIn: number, bytesOut: number) => ({ hour: new Date(iso), requests, bytesIn, bytesOut });
  const perBucket = new Map([
    ['t', [h('2026-11-25T09:00:00Z', 50, 50, 50), h('2026-11-25T10:00:00Z', 2, 100, 0), h('2026-11-25T11:00:00Z', 1, 0, 10)]],
    ['b', [h('2026-11-25T11:00:00Z', 3, 7, 1)]],
    ['other', [h('2026-11-25T11:00:00Z', 99, 99, 99)]],
  ]);
  expect(catalogTraffic(perBucket, ['t', 'b'], new Date('2026-11-25T10:00:00Z'))).toEqual([
    { hour: '2026-11-25T10:00:00.000Z', requests: 2, bytes_in: 100, bytes_out: 0 },
    { hour: '2026-11-25T11:00:00.000Z', requests: 4, bytes_in: 7, bytes_out: 11 },
  ]);
  expect(catalogTraffic(new Map(), ['t'], new Date(0))).toEqual([]);
});
