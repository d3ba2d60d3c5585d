import { barOf, storageChart } from './usage-chart';

const plain = (n: number) => `${n} B`;

test('bars scale to the largest day, in eighths of a character', () => {
  expect(barOf(100, 100, 10)).toBe('█'.repeat(10));
  expect(barOf(50, 100, 10)).toBe('█'.repeat(5));
  expect(barOf(55, 100, 10)).toBe(`${'█'.repeat(5)}▌`);
  expect(barOf(1, 1_000_000, 10)).toBe('▏'); // never invisible when there are bytes
  expect(barOf(0, 100, 10)).toBe('');
});

test('one line per day: date, bytes right-aligned, bar', () => {
  const lines = storageChart([{ day: '2026-11-01', bytes: 200 }, { day: '2026-11-02', bytes: 100 }, { day: '2026-11-03', bytes: 50 }], 8, plain);
  expect(lines).toEqual([
    '2026-11-01  200 B  ████████',
    '2026-11-02  100 B  ████',
    '2026-11-03   50 B  ██',
  ]);
});

test('all zero: the bytes without bars', () => {
  expect(storageChart([{ day: '2026-11-01', bytes: 0 }, { day: '2026-11-02', bytes: 0 }], 8, plain)).toEqual(['2026-11-01  0 B', '2026-11-02  0 B']);
});

test('one day fills the width', () => {
  expect(storageChart([{ day: '2026-11-27', bytes: 1_500_000 }], 4)).toEqual(['2026-11-27  1.5 MB  ████']);
});

test('days without a sample say unmetered and do not change the scale', () => {
  const lines = storageChart([{ day: '2026-11-01', bytes: null }, { day: '2026-11-02', bytes: 80 }, { day: '2026-11-03', bytes: null }, { day: '2026-11-04', bytes: 40 }], 4, plain);
  expect(lines).toEqual([
    '2026-11-01  unmetered',
    '2026-11-02       80 B  ████',
    '2026-11-03  unmetered',
    '2026-11-04       40 B  ██',
  ]);
  expect(storageChart([{ day: '2026-11-01', bytes: null }], 4, plain)).toEqual(['2026-11-01  unmetered']);
  expect(storageChart([], 4, plain)).toEqual([]);
});
