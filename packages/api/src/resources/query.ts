import { z } from 'zod';
import { operations, type Auth } from '../operation';

// Spec: POST /v1/query (error index only; Floe's shape): a read-only SQL
// statement over a catalog's tables, run server-side by the query worker.

/** The spec's result cap (2,000 rows) and the byte cap Floe states for an answer's rows, as JSON. */
export const QUERY_ROW_CAP = 2000;
export const QUERY_BYTE_CAP = 1024 * 1024;

const SnapshotId = z.union([z.string().regex(/^-?\d{1,20}$/, 'a snapshot id: digits'), z.number().int()]);
const AsOf = z.union([z.iso.datetime({ offset: true }), z.number().int().min(0)]);

/** POST /v1/query, after the route maps the alias `warehouse` onto `warehouse_id`. */
export const QueryBody = z.object({
  warehouse_id: z.string().min(1),
  sql: z.string().min(1).max(100_000),
  snapshot_id: SnapshotId.optional(),
  as_of: AsOf.optional(),
  limit: z.number().int().min(1).max(QUERY_ROW_CAP).optional(),
});

const CREDENTIAL: Auth[] = ['api_key', 'session', 'oauth'];

const QueryDoc = z.object({
  warehouse_id: z.string().min(1).optional().meta({ description: 'The catalog: its id or its name. Required unless `warehouse` is given.' }),
  warehouse: z.string().min(1).optional().meta({ description: 'Alias of `warehouse_id` (id or name), read when `warehouse_id` is absent.' }),
  sql: z.string().min(1).max(100_000).meta({
    description: 'One read-only SELECT (WITH, joins, aggregates, window functions) naming the catalog\'s tables as `namespace.table`. No COPY, ATTACH, INSTALL, LOAD, SET, PRAGMA, no second statement, no file or URL readers.',
    example: 'SELECT country, count(*) AS orders FROM sales.orders GROUP BY country ORDER BY orders DESC',
  }),
  snapshot_id: SnapshotId.optional().meta({ description: 'Read this snapshot of the statement\'s one table (send 64-bit ids as a string).' }),
  as_of: AsOf.optional().meta({ description: 'Read each table as it stood at this moment: an ISO 8601 time or epoch milliseconds. Not with `snapshot_id`.' }),
  limit: z.number().int().min(1).max(QUERY_ROW_CAP).optional().meta({ description: `At most this many rows come back (default and cap ${QUERY_ROW_CAP}).` }),
});

const QueryResult = z.object({
  warehouse: z.string(),
  warehouse_id: z.string(),
  statement: z.string().meta({ description: 'The statement as it ran: DuckDB\'s printing of what it parsed.' }),
  columns: z.array(z.object({ name: z.string(), type: z.string().meta({ description: 'DuckDB\'s type name (BIGINT, VARCHAR, TIMESTAMP WITH TIME ZONE, DECIMAL(10,2), …)' }) })),
  rows: z.array(z.record(z.string(), z.unknown())).meta({ description: 'One object per row, by column name. 64-bit integers and decimals come as strings, dates, times and timestamps as text, lists as arrays, structs as objects, maps as lists of `{key, value}`.' }),
  row_count: z.number().int(),
  truncated: z.boolean().meta({ description: 'Whether there were more rows than came back (the limit, or the byte cap).' }),
  limit: z.number().int(),
  byte_limit: z.number().int().meta({ description: `The byte cap of the rows, as JSON (${QUERY_BYTE_CAP}).` }),
  snapshot_ids: z.record(z.string(), z.string().nullable()).meta({ description: 'Per table read (`namespace.table`), the snapshot read; null for a table with no snapshot yet.' }),
  elapsed_ms: z.number().int(),
  bytes_scanned: z.number().int().meta({ description: 'Bytes of the data and delete files the statement read.' }),
  files_scanned: z.number().int().meta({ description: 'Data and delete files read.' }),
  files_skipped: z.number().int().meta({ description: 'Data files left out because their column bounds or identity partition rule out every row the statement\'s WHERE keeps (comparisons of a column with a constant, on a statement over one table).' }),
  timing: z.object({ queued_ms: z.number().int(), fetch_ms: z.number().int(), run_ms: z.number().int() }),
});

export const query = {
  tag: 'Query',
  description: 'A read-only SQL statement over a catalog\'s tables, run server-side by the query worker (DuckDB, sandboxed): at the current snapshot, one asked for, or as of a moment.',
  operations: operations([
    {
      method: 'post', path: '/v1/query', id: 'runQuery', service: 'control-plane',
      summary: 'Ask a catalog\'s tables a question in SQL',
      description: 'Read level on the catalog (a token consented for reading may call it). The statement\'s tables are planned from their Iceberg metadata and read through storage sessions the catalog vends for each table alone; deletes and deletion vectors are applied. '
        + `Limits: 20 seconds (408 \`query_timeout\`), ${QUERY_ROW_CAP} rows and ${QUERY_BYTE_CAP} bytes of rows (\`truncated\`), a statement's memory (400 \`invalid_value\` when it needs more); `
        + 'a shared queue: beyond the deployment\'s statements at once or the organisation\'s share, 429 `busy` with `Retry-After`. Answers are never cached.',
      auth: CREDENTIAL,
      body: QueryDoc,
      responses: { 200: { description: 'The rows, their columns, and what was read.', schema: QueryResult } },
      errors: ['missing_field', 'invalid_value', 'warehouse_not_found', 'warehouse_deleting', 'warehouse_deleted', 'ambiguous_name', 'forbidden', 'provisioning', 'not_found', 'busy', 'query_timeout', 'catalog_unavailable'],
    },
  ]),
};
