import { z } from 'zod';
import { structured } from '../tool-result';
import { renderRows } from './result-table';
import { catalogArg as catalog, tool } from './tool';

// The read tool `query`: one read-only SQL statement over a catalog's tables
// through the control plane's POST /v1/query, with the caller's token (read
// level on the catalog suffices, so a `catalogs:read` connection may call
// it). The rows come back as structured content; the text is a short table
// of them for a host that shows only text. The limits the description states
// are the route's (packages/queues QUERY_LIMITS: 20 s, 2,000 rows, 1 MiB of
// rows; the tool server does not depend on that package, so they are words).

/** POST /v1/query's answer (packages/api resources/query.ts), as far as this tool reads it. */
interface QueryAnswer {
  warehouse: string; warehouse_id: string; statement: string;
  columns: Array<{ name: string; type: string }>; rows: Array<Record<string, unknown>>;
  row_count: number; truncated: boolean; limit: number; byte_limit: number;
  snapshot_ids: Record<string, string | null>; elapsed_ms: number; bytes_scanned: number; files_scanned: number;
}

const MAX_ROWS = 2000;

export const query = tool({
  name: 'query',
  level: 'read',
  title: 'Query tables with SQL',
  description: 'Runs one read-only SQL SELECT (DuckDB\'s dialect: WITH, joins, aggregates, window functions) over a catalog\'s tables and returns the rows. '
    + 'Name every table as namespace.table, exactly as list_tables shows it (e.g. SELECT count(*) FROM events.clicks); if unsure of the tables or '
    + 'their columns, call list_tables and describe_table first. Only that one statement runs: no second statement after ;, no COPY, ATTACH, '
    + 'INSTALL, LOAD, SET or PRAGMA, no file or URL readers. A statement is stopped after 20 seconds, and at most 2,000 rows (and 1 MiB of them) '
    + 'come back, so aggregate or filter in SQL rather than fetching whole tables. Reads the current snapshot, or snapshot_id (of the statement\'s one '
    + 'table), or as_of (every table as it stood then).',
  input: {
    catalog,
    sql: z.string().min(1).max(100_000)
      .describe('One read-only SELECT naming tables as namespace.table, e.g. "SELECT country, count(*) AS orders FROM sales.orders GROUP BY country ORDER BY orders DESC".'),
    snapshot_id: z.string().regex(/^-?\d{1,20}$/, 'a snapshot id: digits').optional()
      .describe('Read this snapshot of the statement\'s one table: its id, as a string of digits (describe_table gives current_snapshot_id). Not with as_of.'),
    as_of: z.union([z.string().min(1), z.number().int().min(0)]).optional()
      .describe('Read every table as it stood at this moment: an ISO 8601 time with offset (e.g. "2025-06-01T12:00:00Z") or epoch milliseconds. Not with snapshot_id.'),
    limit: z.number().int().min(1).max(MAX_ROWS).optional().describe(`At most this many rows, 1 to ${MAX_ROWS} (default ${MAX_ROWS}).`),
  },
  output: {
    catalog: z.string().describe('The catalog\'s name.'),
    warehouse_id: z.string(),
    statement: z.string().describe('The statement as it ran (DuckDB\'s printing of what it parsed).'),
    columns: z.array(z.object({ name: z.string(), type: z.string().describe('DuckDB\'s type name, e.g. BIGINT, VARCHAR, DECIMAL(10,2).') })),
    rows: z.array(z.record(z.string(), z.unknown()))
      .describe('One object per row, by column name; 64-bit integers and decimals as strings, dates and timestamps as ISO text.'),
    row_count: z.number().int(),
    truncated: z.boolean().describe('Whether more rows matched than came back (the limit, or the byte cap).'),
    limit: z.number().int(),
    byte_limit: z.number().int(),
    snapshot_ids: z.record(z.string(), z.string().nullable()).describe('Per table read (namespace.table), the snapshot read; null for a table with none yet.'),
    elapsed_ms: z.number().int(),
    bytes_scanned: z.number().int(),
    files_scanned: z.number().int(),
  },
  remedies: {
    not_found: 'the table or snapshot named is not there: call list_tables for the catalog\'s tables and name them exactly as namespace.table; '
      + 'leave out snapshot_id and as_of to read the current snapshot (describe_table gives current_snapshot_id)',
    invalid_value: 'the statement or a value was refused (see field and message): send one read-only SELECT naming tables as namespace.table, '
      + 'with no second statement, COPY, ATTACH, INSTALL, LOAD, SET, PRAGMA or file readers, or correct the field named, and call again',
    forbidden: 'this connection may not read that (see message): if it holds no read level on the catalog, ask the person to authorize the assistant again with read on it; otherwise tell the person what the message says',
  },
  run: async (args, c) => {
    const a = await c.cp.post<QueryAnswer>(c.caller.token, '/v1/query', {
      body: { warehouse_id: args.catalog, sql: args.sql, snapshot_id: args.snapshot_id, as_of: args.as_of, limit: args.limit }, requestId: c.requestId,
    });
    const read = Object.entries(a.snapshot_ids).map(([t, id]) => (id === null ? `${t} (no snapshot yet)` : `${t} at snapshot ${id}`));
    const sentence = `${a.row_count} row(s) of ${a.columns.length} column(s) from catalog ${a.warehouse}${read.length ? `, reading ${read.join(', ')}` : ''} `
      + `(${a.files_scanned} file(s), ${a.bytes_scanned} bytes scanned, ${a.elapsed_ms} ms).`;
    const cut = a.truncated
      ? `\nMore rows matched than came back (the limit of ${a.limit} rows, or ${a.byte_limit} bytes of rows): aggregate or filter in SQL to see the rest.`
      : '';
    return structured(`${sentence}\n${renderRows(a.columns, a.rows)}${cut}`, {
      catalog: a.warehouse, warehouse_id: a.warehouse_id, statement: a.statement, columns: a.columns, rows: a.rows, row_count: a.row_count,
      truncated: a.truncated, limit: a.limit, byte_limit: a.byte_limit, snapshot_ids: a.snapshot_ids,
      elapsed_ms: a.elapsed_ms, bytes_scanned: a.bytes_scanned, files_scanned: a.files_scanned,
    });
  },
});
