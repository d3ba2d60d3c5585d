// `floe rows <catalog> <namespace.table>`: the first rows of a table's current
// snapshot, read with the catalog's read-only credential (table-rows.ts).
// The rows go to stdout (an aligned table, or NDJSON with --json); how many
// of how many, and from which snapshot, goes to stderr.
import { InvalidArgumentError, type Command } from 'commander';
import { parseTableName } from '../catalog-client.js';
import type { Io } from '../io.js';
import { ndjsonLines, rowsTable } from '../rows-output.js';
import { openSession } from '../session.js';
import { DEFAULT_LIMIT, MAX_LIMIT, readTableRows } from '../table-rows.js';

export function parseLimit(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_LIMIT) throw new InvalidArgumentError(`a whole number from 1 to ${MAX_LIMIT}`);
  return n;
}

export function registerRows(program: Command, io: Io): void {
  program.command('rows')
    .description("print a table's rows (its current snapshot), read with the catalog's read-only credential")
    .argument('<catalog>', 'catalog name or id')
    .argument('<table>', 'namespace.table (the last dot ends the namespace)')
    .option('--limit <n>', `rows to print, at most ${MAX_LIMIT}`, parseLimit, DEFAULT_LIMIT)
    .option('--json', 'one JSON object per row (NDJSON); longs past 2^53 as strings')
    .action(async (catalog: string, tableArg: string, opts: { limit: number; json?: boolean }, cmd: Command) => {
      const table = parseTableName(tableArg);
      const { api } = openSession(io, cmd.optsWithGlobals().baseUrl);
      const read = await readTableRows(api, catalog, table, opts.limit);
      if (read.snapshotId === null) return io.err(`0 rows: ${read.table} has no snapshot yet (nothing appended).`);
      const printed = opts.json ? ndjsonLines(read.columns, read.rows).join('\n') : rowsTable(read.columns, read.rows);
      if (printed) io.out(printed);
      io.err(`${read.rows.length} rows of ${read.total} (snapshot ${read.snapshotId})`);
    });
}
