// How a rewrite splits its input into output files near the target size.
// DuckDB's own rolling (COPY … FILE_SIZE_BYTES) was tried and dropped: with
// several threads writing one file its files came out anywhere from 40% to
// 100% of the target and its rows out of order. Instead the input is cut
// into units (the input files' row groups, whose compressed bytes the
// footers give), and consecutive units are grouped so that each group's
// output, estimated as input bytes × the output/input ratio seen so far, is
// near an even share of the rest; each group is then one ordinary COPY.
// The ratio is first measured on a probe (probeEnd) big enough to hold a
// whole output row group: a smaller one compresses worse and made the split
// overestimate (4 MB of output in two 2 MB files at a 4 MiB target).
//
// How many files: Iceberg's bin-pack rule (SizeBasedFileRewritePlanner): one
// more file for the remainder only if the remainder would be at least 75% of
// the target, or if leaving it out would make the files average over 110% of
// the target.

export interface Unit {
  /** Index of the input file. */
  file: number;
  /** First row (file_row_number) and row count of this row group. */
  firstRow: bigint;
  rows: bigint;
  bytes: number;
}

const MIN_FILE_RATIO = 0.75;
const MAX_AVERAGE_RATIO = 1.1;

export function expectedFileCount(estimatedBytes: number, target: number): number {
  if (estimatedBytes <= target) return 1;
  const withRemainder = Math.ceil(estimatedBytes / target);
  const withoutRemainder = Math.floor(estimatedBytes / target);
  const remainder = estimatedBytes - withoutRemainder * target;
  if (remainder >= MIN_FILE_RATIO * target) return withRemainder;
  return estimatedBytes / withoutRemainder < MAX_AVERAGE_RATIO * target ? withoutRemainder : withRemainder;
}

/**
 * End (exclusive) of the next group starting at `from`: the unit boundary
 * whose estimated output is closest to an even share of what is left.
 */
export function nextGroupEnd(units: readonly Unit[], from: number, target: number, ratio: number): number {
  const left = units.slice(from).reduce((sum, u) => sum + u.bytes, 0) * ratio;
  const files = expectedFileCount(left, target);
  if (files === 1) return units.length;
  const share = left / files;
  let end = from;
  let size = 0;
  while (end < units.length) {
    const next = size + units[end].bytes * ratio;
    if (next >= share) return end > from && share - size < next - share ? end : end + 1;
    size = next;
    end++;
  }
  return end;
}

/** DuckDB's rows per row group, and the most input a probe reads. */
const PROBE_ROWS = 122_880n;
const PROBE_BYTES = 16 * 1024 * 1024;

/** End (exclusive) of the probe: units from the start until a row group's rows or 16 MiB of input. */
export function probeEnd(units: readonly Unit[]): number {
  let rows = 0n;
  let bytes = 0;
  let end = 0;
  while (end < units.length && rows < PROBE_ROWS && bytes < PROBE_BYTES) {
    rows += units[end].rows;
    bytes += units[end].bytes;
    end++;
  }
  return end;
}
