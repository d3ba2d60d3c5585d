// The split policy alone: how many files, and where each group ends.
import { expectedFileCount, nextGroupEnd, probeEnd, type Unit } from './bin-pack.js';

const MB = 1024 * 1024;

test.each([
  [50 * MB, 1], // under the target: one file
  [128 * MB, 1],
  [140 * MB, 1], // remainder 12 MB < 75%: left out, the average (140) stays under 110% (140.8)
  [150 * MB, 2], // left out, the average would be over 110%: one more file
  [230 * MB, 2], // remainder 102 MB ≥ 75% of 128: one more file
  [300 * MB, 3], // remainder 44 MB < 75%, but two files would average 150 MB, over 110% (140.8): three
])('expectedFileCount(%d bytes, 128 MiB) = %d', (bytes, files) => {
  expect(expectedFileCount(bytes, 128 * MB)).toBe(files);
});

const units = (sizes: number[]): Unit[] => sizes.map((bytes, file) => ({ file, firstRow: 0n, rows: 1n, bytes }));

test('groups are even shares of what is left, cut at the closest unit boundary', () => {
  const ten = units(Array(10).fill(30 * MB)); // 300 MB: 3 files of 100 MB
  expect(nextGroupEnd(ten, 0, 128 * MB, 1)).toBe(3); // 90 MB is closer to 100 than 120 is
  expect(nextGroupEnd(ten, 3, 128 * MB, 1)).toBe(7); // 210 MB left: 2 files of 105: 120 is closer than 90
  expect(nextGroupEnd(ten, 7, 128 * MB, 1)).toBe(10);
  // The ratio scales the estimate: at 0.5, 300 MB of input is 150 MB of output, two files of 75.
  expect(nextGroupEnd(ten, 0, 128 * MB, 0.5)).toBe(5);
  // A unit larger than the share still makes progress.
  expect(nextGroupEnd(units([500 * MB, 10 * MB]), 0, 128 * MB, 1)).toBe(1);
});

test('the probe reads a row group of rows or 16 MiB, whichever comes first, and at least one unit', () => {
  const rows = (n: bigint, bytes: number): Unit => ({ file: 0, firstRow: 0n, rows: n, bytes });
  expect(probeEnd([rows(50_000n, MB), rows(50_000n, MB), rows(50_000n, MB), rows(50_000n, MB)])).toBe(3);
  expect(probeEnd([rows(1_000n, 10 * MB), rows(1_000n, 10 * MB), rows(1_000n, 10 * MB)])).toBe(2);
  expect(probeEnd([rows(1_000_000n, 100 * MB), rows(1n, 1)])).toBe(1);
});
