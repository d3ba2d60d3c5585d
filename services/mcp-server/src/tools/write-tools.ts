import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { refusal } from '../service-refusal';
import { ok } from '../tool-result';
import { catalogArg as catalog, tool } from './tool';

// The write tools: listed only for a token whose scope holds
// `catalogs:write`, and refused (insufficient_scope) for any other before
// they run (tools/register.ts). The control plane still judges each call at
// the record's level on the catalog.


const Column = z.object({
  name: z.string().min(1).describe('Column name.'),
  type: z.string().min(1).describe('Iceberg type: boolean, int, long, float, double, decimal(P,S), date, time, timestamp, timestamptz, string, uuid, fixed[L], binary.'),
  required: z.boolean().optional().describe('Whether a value is required (default false).'),
  doc: z.string().optional().describe('What the column holds.'),
});

export const createTable = tool({
  name: 'create_table',
  level: 'write',
  title: 'Create a table',
  description: 'Creates an Iceberg table in a catalog; the namespace is created when missing. Give the columns in order with Iceberg types. '
    + 'The catalog\'s default format version applies. Needs write on the catalog.',
  input: {
    catalog,
    namespace: z.string().min(1).describe('Namespace, e.g. "events".'),
    table: z.string().min(1).describe('Table name, e.g. "clicks".'),
    columns: z.array(Column).min(1).describe('The columns, in order.'),
  },
  run: async (args, c) => {
    // Field ids from 1 in the given order; the catalog reassigns them as it does for any create.
    const schema = {
      type: 'struct',
      'schema-id': 0,
      fields: args.columns.map((col, i) => ({ id: i + 1, name: col.name, type: col.type, required: col.required ?? false, ...(col.doc ? { doc: col.doc } : {}) })),
    };
    // No format_version: the catalog's default_format_version decides (spec: PATCH /v1/warehouses governs the tool server's creates).
    const r = await c.cp.post<Record<string, unknown>>(c.caller.token, '/v1/tables', {
      body: { warehouse_id: args.catalog, namespace: args.namespace, name: args.table, schema }, requestId: c.requestId,
    });
    return ok(`Created table ${String(r.table)} in catalog ${String(r.warehouse)} (format version ${String(r.format_version)}).`, r);
  },
});

interface Sink { sink_id: string; name: string; table: string; warehouse_id: string; warehouse_name: string; state: string }

const BATCH_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const sendRows = tool({
  name: 'send_rows',
  level: 'write',
  title: 'Send rows to a sink',
  description: 'Sends rows (JSON objects, one per row) to an ingest sink, which appends them to its table at the next roll (within minutes). '
    + 'Give a batch_id to make a retry safe: the same batch_id is accepted once. Needs write on the sink\'s catalog.',
  input: {
    sink: z.string().min(1).describe('The sink: its name or sink_id.'),
    rows: z.array(z.record(z.string(), z.unknown())).min(1).describe('The rows, each an object of column name to value.'),
    batch_id: z.string().regex(BATCH_ID).optional().describe('1-128 letters, digits, . _ : -; one is made when left out.'),
  },
  run: async (args, c) => {
    // authorize: the token must see the sink and hold write on its catalog (the send route itself takes only send keys)
    const sink = await c.cp.get<Sink>(c.caller.token, `/v1/sinks/${encodeURIComponent(args.sink)}`, { requestId: c.requestId });
    const w = await c.cp.get<{ my_level: string; name: string }>(c.caller.token, `/v1/warehouses/${encodeURIComponent(sink.warehouse_id)}`, { requestId: c.requestId });
    if (w.my_level !== 'write') {
      throw refusal(403, 'forbidden', `this connection holds ${w.my_level} on catalog ${w.name}; sending rows needs write`, {
        remedy: `ask the person who connected this assistant to authorize it again with write on ${w.name}`, level: w.my_level,
      });
    }
    // act: the send route's intake, through the ingest gateway's internal route
    const batchId = args.batch_id ?? `mcp-${randomUUID()}`;
    const r = await c.ingest.sendBatch({ sinkId: sink.sink_id, batchId, rows: args.rows, actorId: c.caller.recordId, requestId: c.requestId });
    const sentence = r.duplicate
      ? `Batch ${batchId} was already received (state ${r.state}); nothing was sent again.`
      : `Sent ${r.accepted} row(s) to sink ${sink.name} (table ${sink.table}); they are appended at the next roll.`;
    return ok(sentence, { sink_id: sink.sink_id, sink: sink.name, table: sink.table, catalog: sink.warehouse_name, ...r });
  },
});

export const WRITE_TOOLS = [createTable, sendRows];
