// `floe rows <catalog> <namespace.table>`: the first rows of a table's current
// snapshot, read with the catalog's read-only credential (table-rows.ts).
// The rows go to stdout (an aligned table, or NDJSON with --json); how many
// of how many, and from which snapshot, goes to stderr.
import type { Command } from 'commander';
import { parseTableName } from '../catalog-client.js';
import { act, examples } from '../command.js';
import type { Io } from '../io.js';
import { wholeNumber } from '../option-values.js';
import { ndjsonLines, rowsTable } from '../rows-output.js';
import { DEFAULT_LIMIT, MAX_LIMIT, readTableRows } from '../table-rows.js';

export const parseLimit = wholeNumber(1, MAX_LIMIT);

export function registerRows(program: Command, io: Io): void {
  examples(program.command('rows')
    .description("print a table's rows (its current snapshot), read with the catalog's read-only credential")
    .argument('<catalog>', 'catalog name or id')
    .argument('<table>', 'namespace.table (the last dot ends the namespace)')
    .option('--limit <n>', `rows to print, at most ${MAX_LIMIT}`, parseLimit, DEFAULT_LIMIT)
    .action(act(io, async (c, catalog: string, tableArg: string, opts: { limit: number }) => {
      const table = parseTableName(tableArg);
      const { api } = await c.session();
      const read = await readTableRows(api, catalog, table, opts.limit);
      if (read.snapshotId === null) return io.err(`0 rows: ${read.table} has no snapshot yet (nothing appended).`);
      // --json (global): one JSON object per row (NDJSON); longs past 2^53 as strings.
      const printed = c.g.json ? ndjsonLines(read.columns, read.rows).join('\n') : rowsTable(read.columns, read.rows);
      if (printed) io.out(printed);
      io.err(`${read.rows.length} rows of ${read.total} (snapshot ${read.snapshotId})`);
    })), ['floe rows lake demo.events', 'floe rows lake demo.events --limit 1000 --json > events.ndjson']);
}
