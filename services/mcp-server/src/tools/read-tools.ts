import { z } from 'zod';
import { refusal } from '../service-refusal';
import { ok } from '../tool-result';
import { query } from './query';
import { catalogArg as catalog, tool } from './tool';

// The read tools: every token gets them. Each is one or two control-plane
// reads with the caller's token, summarised for an assistant (query, which
// answers with rows, has a file of its own).

const ENGINES = ['duckdb', 'pyiceberg', 'spark', 'snowflake'] as const;

interface WarehouseRow {
  name: string; warehouse_id: string; project: string; project_id: string; my_level: string; my_via: string; status: string;
  default_format_version: number; public: boolean; stored?: unknown;
}

export const listCatalogs = tool({
  name: 'list_catalogs',
  level: 'read',
  title: 'List catalogs',
  description: 'Lists the Iceberg catalogs (warehouses) this connection may use, with the level it holds on each (read or write), '
    + 'its status and default table format version. Start here: the other tools take a catalog name or id from this list; '
    + 'then read catalog_instructions for the catalog you will work in.',
  input: {},
  run: async (_args, c) => {
    const r = await c.cp.get<{ warehouses: WarehouseRow[]; count: number; catalog_uri: string }>(c.caller.token, '/v1/warehouses', { requestId: c.requestId });
    const catalogs = r.warehouses.map((w) => ({
      name: w.name, warehouse_id: w.warehouse_id, project: w.project, level: w.my_level, status: w.status,
      default_format_version: w.default_format_version, public: w.public, stored: w.stored,
    }));
    return ok(`${r.count} catalog(s) visible to this connection.`, { count: r.count, catalogs, catalog_uri: r.catalog_uri });
  },
});

interface AgentsMdAnswer {
  warehouse_id: string; name: string;
  agents_md: { content: string; etag: string; bytes: number; updated_at: string | null; updated_by: string | null } | null;
}

export const catalogInstructions = tool({
  name: 'catalog_instructions',
  level: 'read',
  title: 'Catalog instructions',
  description: 'Returns the catalog\'s instructions for assistants (its AGENTS.md, markdown), written by the people who hold write on it: '
    + 'what the tables and columns mean, naming and modelling conventions, what not to touch. Read them before querying or changing a catalog, '
    + 'and follow them. A catalog may have none.',
  input: { catalog },
  run: async (args, c) => {
    const r = await c.cp.get<AgentsMdAnswer>(c.caller.token, `/v1/warehouses/${encodeURIComponent(args.catalog)}/agents-md`, { requestId: c.requestId });
    const base = { catalog: r.name, warehouse_id: r.warehouse_id };
    if (!r.agents_md) return ok(`Catalog ${r.name} has no instructions for assistants.`, { ...base, instructions: null });
    const m = r.agents_md;
    return ok(`Instructions for catalog ${r.name} (${m.bytes} bytes, updated ${m.updated_at ?? 'at an unknown time'}): follow them while working in it.`, {
      ...base, instructions: m.content, etag: m.etag, bytes: m.bytes, updated_at: m.updated_at, updated_by: m.updated_by,
    });
  },
});

export const listTables = tool({
  name: 'list_tables',
  level: 'read',
  title: 'List namespaces and tables',
  description: 'Lists the namespaces and tables of one catalog. Give `namespace` to list only that namespace\'s tables. '
    + 'Table names come back as namespace.table, the form describe_table and the sinks use.',
  input: { catalog, namespace: z.string().min(1).optional().describe('Only this namespace, e.g. "events".') },
  run: async (args, c) => {
    const q = { warehouse: args.catalog, namespace: args.namespace };
    const [ns, tables] = await Promise.all([
      c.cp.get<{ warehouse: string; warehouse_id: string; namespaces: Array<{ namespace: string }> }>(c.caller.token, '/v1/namespaces', { query: { warehouse: args.catalog }, requestId: c.requestId }),
      c.cp.get<{ namespaces_searched: string[]; tables: Array<{ namespace: string; name: string; table: string }> }>(c.caller.token, '/v1/tables', { query: q, requestId: c.requestId }),
    ]);
    const namespaces = args.namespace ? [args.namespace] : ns.namespaces.map((n) => n.namespace);
    return ok(`${tables.tables.length} table(s) in ${namespaces.length} namespace(s) of catalog ${ns.warehouse}.`, {
      catalog: ns.warehouse, warehouse_id: ns.warehouse_id, namespaces, tables: tables.tables.map((t) => t.table),
    });
  },
});

export const describeTable = tool({
  name: 'describe_table',
  level: 'read',
  title: 'Describe a table',
  description: 'Describes one table: its columns (id, name, type, required), row count and where the count comes from '
    + '(rows_source; rows_is_exact says whether deletes make it an upper bound), snapshots, partitioning, properties and Iceberg format version.',
  input: {
    catalog,
    namespace: z.string().min(1).describe('The table\'s namespace, e.g. "events".'),
    table: z.string().min(1).describe('The table\'s name within the namespace, e.g. "clicks".'),
  },
  run: async (args, c) => {
    const t = await c.cp.get<Record<string, unknown>>(c.caller.token, '/v1/table', {
      query: { warehouse: args.catalog, namespace: args.namespace, name: args.table }, requestId: c.requestId,
    });
    const pick = (...keys: string[]) => Object.fromEntries(keys.filter((k) => k in t).map((k) => [k, t[k]]));
    return ok(`Table ${String(t.table)} in catalog ${String(t.warehouse)}: format version ${String(t.format_version)}, ${String(t.rows)} row(s) (${String(t.rows_source)}).`, pick(
      'table', 'warehouse', 'warehouse_id', 'namespace', 'name', 'table_uuid', 'format_version', 'schema', 'identifier_field_ids', 'partition_spec',
      'rows', 'rows_source', 'rows_is_exact', 'rows_gross', 'rows_note', 'data_files', 'delete_files', 'snapshots', 'current_snapshot_id',
      'properties', 'location', 'readers', 'writers', 'note', 'warnings',
    ));
  },
});

export const connectionRecipe = tool({
  name: 'connection_recipe',
  level: 'read',
  title: 'Connection recipe',
  description: 'Returns a ready-to-paste recipe for connecting an engine (duckdb, pyiceberg, spark, snowflake) to a catalog, '
    + 'carrying the catalog credential for the level this connection holds (read-only for read). The recipe holds a secret: show it only to the person.',
  input: { catalog, engine: z.enum(ENGINES).optional().describe('The engine; duckdb when left out.') },
  run: async (args, c) => {
    const r = await c.cp.get<Record<string, unknown>>(c.caller.token, '/v1/connection', {
      query: { warehouse: args.catalog, engine: args.engine ?? 'duckdb' }, requestId: c.requestId,
    });
    return ok(`Connection recipe for ${args.engine ?? 'duckdb'}.`, r);
  },
});

interface UsageReport {
  scope: string; window: unknown; days: number; limits: Record<string, unknown>;
  warehouses: Array<{ warehouse_id: string; name: string; [k: string]: unknown }>; traffic_note?: string; note: string;
}

export const catalogUsage = tool({
  name: 'catalog_usage',
  level: 'read',
  title: 'Catalog usage',
  description: 'Shows one catalog\'s usage: stored bytes by bucket with when they were measured, one row per UTC day '
    + '(footprint, requests, bytes in and out, ingest bytes), the trend, and the storage limit with its headroom.',
  input: { catalog, days: z.number().int().min(1).max(30).optional().describe('Days of history, 1 to 30 (default 7).') },
  run: async (args, c) => {
    const u = await c.cp.get<UsageReport>(c.caller.token, '/v1/usage', { query: { days: args.days }, requestId: c.requestId });
    const byId = u.warehouses.filter((w) => w.warehouse_id === args.catalog);
    const matches = byId.length ? byId : u.warehouses.filter((w) => w.name === args.catalog);
    if (matches.length === 0) {
      throw refusal(404, 'warehouse_not_found', `no catalog ${args.catalog} is visible to this connection`, {
        remedy: 'call list_catalogs for the catalogs this connection may use', available: u.warehouses.map((w) => w.name),
      });
    }
    if (matches.length > 1) {
      throw refusal(409, 'ambiguous_name', `several catalogs are named ${args.catalog}`, {
        remedy: 'name the catalog by its warehouse_id', candidates: matches.map((w) => w.warehouse_id),
      });
    }
    return ok(`Usage of catalog ${matches[0].name} over ${u.days} day(s).`, {
      catalog: matches[0], storage_limit: u.limits.storage_bytes, scope: u.scope, window: u.window,
      ...(u.traffic_note ? { traffic_note: u.traffic_note } : {}), note: u.note,
    });
  },
});

interface MaintenanceView {
  table: string;
  health: Record<string, unknown> & { due: Array<{ kind: string; rule: string }>; next_eligible_at: string };
  rules: string[];
  runs: Array<{ kind: string; status: string; reason: string | null; trigger: { type: string; detail: string }; finished_at: string | null; before: unknown; after: unknown; freed_bytes: number }>;
}

export const tableHealth = tool({
  name: 'table_health',
  level: 'read',
  title: 'Table health and maintenance',
  description: 'Answers "why is this table slow?": its snapshots, manifests, data files and their average size, small files and orphan candidates '
    + 'against the maintenance rules (which rule it crosses now, when it next may), and the maintenance runs — expiry, compaction, manifest rewrite, '
    + 'metadata clean-up, orphan removal — each with why it ran, what it did and the figures before and after.',
  input: {
    catalog,
    namespace: z.string().min(1).describe('The table\'s namespace, e.g. "events".'),
    table: z.string().min(1).describe('The table\'s name within the namespace, e.g. "clicks".'),
  },
  run: async (args, c) => {
    const m = await c.cp.get<MaintenanceView>(c.caller.token, '/v1/table/maintenance', {
      query: { warehouse: args.catalog, namespace: args.namespace, name: args.table }, requestId: c.requestId,
    });
    const h = m.health;
    const due = h.due.length ? `Due now: ${h.due.map((d) => `${d.kind} (${d.rule})`).join('; ')}.` : `Nothing is due; next eligible at ${h.next_eligible_at}.`;
    const last = m.runs.find((r) => r.status !== 'running');
    const lastWords = last ? ` Last run: ${last.kind} ${last.status}${last.reason ? ` — ${last.reason}` : ''}.` : ' No maintenance run yet.';
    const avg = typeof h.avg_file_bytes === 'number' ? ` averaging ${h.avg_file_bytes} bytes` : '';
    return ok(`Table ${m.table}: ${String(h.snapshots)} snapshot(s), ${String(h.manifests)} manifest(s), ${String(h.data_files)} data file(s)${avg}. ${due}${lastWords}`, {
      table: m.table, health: h, rules: m.rules, runs: m.runs.slice(0, 10),
    });
  },
});

export const READ_TOOLS = [listCatalogs, catalogInstructions, listTables, describeTable, connectionRecipe, catalogUsage, tableHealth, query];
