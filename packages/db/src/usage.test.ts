import { trafficByDay, trafficShown } from './usage';

test('hourly counters roll up per UTC day, oldest first', () => {
  const h = (iso: string, requests: number, bytes_in = 0, bytes_out = 0) => ({ hour: new Date(iso), requests, bytes_in, bytes_out });
  expect(trafficByDay([
    h('2026-11-25T00:00:00Z', 3, 10, 1), h('2026-11-24T23:00:00Z', 2, 5, 0), h('2026-11-25T13:00:00Z', 4, 0, 7),
  ])).toEqual([
    { day: '2026-11-24', requests: 2, bytes_in: 5, bytes_out: 0 },
    { day: '2026-11-25', requests: 7, bytes_in: 10, bytes_out: 8 },
  ]);
  expect(trafficByDay([])).toEqual([]);
});

test('traffic shows only when the two latest worker samples both carry counters', () => {
  expect(trafficShown([])).toBe(false);
  expect(trafficShown([{ trafficCounted: true }])).toBe(false);
  expect(trafficShown([{ trafficCounted: true }, { trafficCounted: false }])).toBe(false);
  expect(trafficShown([{ trafficCounted: false }, { trafficCounted: true }])).toBe(false);
  expect(trafficShown([{ trafficCounted: true }, { trafficCounted: true }])).toBe(true);
});
