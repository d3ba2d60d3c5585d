// How the engine's Parquet files come out, in one home for the rewrite and
// the NDJSON load: paths held inside the scratch directory, a staging
// directory beside the output, the COPY options every data file is written
// with, and the files named `<prefix>-<n>.parquet` in order with their
// metrics from the footer.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { stringifyJson, type IcebergType, type Schema } from '@floe/iceberg';
import { fieldIdsOption, type Leaf } from './columns.js';
import { footerStats } from './footer-stats.js';
import type { RewrittenFile } from './rewrite.js';
import { literal } from './sql.js';

const PREFIX = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `p` resolved, or a RangeError naming `what` when it is outside the scratch directory. */
export function inScratch(scratchDir: string, p: string, what: string): string {
  const abs = resolve(p);
  if (abs !== scratchDir && !abs.startsWith(scratchDir + sep)) throw new RangeError(`${what} ${p} is outside the scratch directory`);
  return abs;
}

/**
 * Checks the output's prefix and target, makes the output directory (which
 * must not hold `<prefix>-*` files already: nothing is overwritten) and
 * names the staging directory inside it; the caller creates and removes it.
 */
export function prepareOutput(scratchDir: string, out: { outputDir: string; prefix: string; targetFileSizeBytes: number }): { outputDir: string; staging: string } {
  if (!PREFIX.test(out.prefix)) throw new RangeError(`prefix ${out.prefix} must be letters, digits, '.', '_' or '-'`);
  if (!(out.targetFileSizeBytes > 0)) throw new RangeError('targetFileSizeBytes must be positive');
  const outputDir = inScratch(scratchDir, out.outputDir, 'output directory');
  mkdirSync(outputDir, { recursive: true });
  if (readdirSync(outputDir).some((n) => n.startsWith(`${out.prefix}-`))) {
    throw new Error(`${outputDir} already holds ${out.prefix}-* files: choose another prefix`);
  }
  return { outputDir, staging: join(outputDir, `.${out.prefix}.${randomUUID()}`) };
}

/** COPY's options for an Iceberg data file: zstd, every field id (nested ones too), the table schema as the `iceberg.schema` entry. */
export function dataFileOptions(written: readonly { id: number; name: string; type: IcebergType }[], schema: Schema): string {
  return `FORMAT parquet, COMPRESSION zstd, FIELD_IDS ${fieldIdsOption(written)},
    KV_METADATA {'iceberg.schema': ${literal(stringifyJson(schema))}}`;
}

/** The staged files, in order, measured from their footers and renamed `<prefix>-<n>.parquet` in the output directory; a file with no rows is left behind. */
export async function nameStagedFiles(
  c: DuckDBConnection, staged: readonly string[], outputDir: string, prefix: string, leaves: readonly Leaf[], truncateLength: number,
): Promise<RewrittenFile[]> {
  const results: RewrittenFile[] = [];
  for (const path of staged) {
    const stats = await footerStats(c, path, leaves, truncateLength);
    if (stats.record_count === 0n) continue;
    const localPath = join(outputDir, `${prefix}-${results.length}.parquet`);
    renameSync(path, localPath);
    results.push({ localPath, stats });
  }
  return results;
}
