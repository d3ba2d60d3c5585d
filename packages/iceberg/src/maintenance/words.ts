// How the maintenance planners spell durations, sizes and partitions in the reasons
// and triggers they hand back. One home, so a retention reason ("within 5 days") and a
// run's trigger ("37 files under 96 MB in partition (none)") read the same on every
// surface that shows them.

import type { PartitionData } from '../files/partition';

const UNITS: [number, string][] = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1_000, 'second'],
];

/** `5 days`, `1 hour`, `90 seconds`, `1500 ms`: the largest unit that divides exactly. */
export function formatDuration(ms: bigint | number): string {
  const n = Number(ms);
  for (const [size, unit] of UNITS) {
    if (n >= size && n % size === 0) return plural(n / size, unit);
  }
  return `${n} ms`;
}

const MiB = 1024 * 1024;

/** Sizes in binary megabytes, as the catalog's `target_file_size_mb` counts them: `96 MB`, `0.5 MB`. */
export function formatMegabytes(bytes: number): string {
  const mb = bytes / MiB;
  const text = Number.isInteger(mb) ? String(mb) : mb >= 10 ? mb.toFixed(0) : String(Number(mb.toFixed(2)));
  return `${text} MB`;
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** `(none)` for an unpartitioned tuple, else `(category=books, ts_day=19876)`. */
export function partitionLabel(partition: PartitionData): string {
  const fields = Object.entries(partition ?? {});
  if (fields.length === 0) return '(none)';
  return `(${fields.map(([name, v]) => `${name}=${valueText(v)}`).join(', ')})`;
}

function valueText(v: PartitionData[string]): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof Uint8Array) return `0x${Buffer.from(v).toString('hex')}`;
  return String(v);
}
