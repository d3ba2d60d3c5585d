// `floe tables list|create|show|drop`: a catalog's tables through Floe's API
// (GET /v1/tables, POST /v1/tables, GET and DELETE /v1/table), which acts in
// the catalog as the catalog's own identity. A table is named
// `namespace.table` (the last dot ends the namespace); a new one's schema is
// `--columns` (table-schema.ts) or a whole Iceberg schema as JSON. A drop
// always purges the table's files, so it is confirmed by typing the name.
// --json prints Floe's answer.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ok } from '../api-client.js';
import { parseTableName, tableNameText, type TableName } from '../catalog-client.js';
import { act, examples } from '../command.js';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { parseColumns, parseFormatVersion, schemaFromJson, type FormatVersion, type StructSchema } from '../table-schema.js';

/** The query naming one table, as the /v1/table routes take it (namespace levels joined with `.`). */
const tableQuery = (catalog: string, t: TableName) => ({ params: { query: { warehouse_id: catalog, namespace: t.namespace.join('.'), name: t.name } } });

/** `--schema` is inline JSON when it starts like JSON, else the path of a JSON file. */
async function schemaOption(value: string): Promise<StructSchema> {
  if (/^\s*[[{]/.test(value)) return schemaFromJson(value, '--schema');
  let text: string;
  try {
    text = await readFile(value, 'utf8');
  } catch (err) {
    throw usageError(`cannot read the schema file ${value}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return schemaFromJson(text, value);
}

/** A column's type as one cell: a primitive's name, or a nested type's JSON. */
const typeText = (type: unknown) => (typeof type === 'string' ? type : JSON.stringify(type));

export function registerTables(program: Command, io: Io): void {
  const tables = program.command('tables').description('the tables of a catalog: list, create, show, drop');

  examples(tables.command('list', { isDefault: true })
    .description('list the tables of a catalog')
    .argument('<catalog>', 'catalog name or id')
    .option('--namespace <ns>', 'only this namespace (levels joined with .)')
    .action(act(io, async (c, catalog: string, opts: { namespace?: string }) => {
      const { api } = await c.session();
      const answer = await ok(api.http.GET('/v1/tables', { params: { query: { warehouse_id: catalog, ...(opts.namespace ? { namespace: opts.namespace } : {}) } } }));
      c.out.result(answer, (a) => {
        if (a.tables.length === 0) return c.out.note(`No tables in ${a.warehouse}${opts.namespace ? ` namespace ${opts.namespace}` : ''}. Make one with: floe tables create ${a.warehouse} <namespace.table> --columns "id:long!,name:string"`);
        c.out.table(['TABLE'], a.tables.map((t) => [t.table]));
      });
    })), ['floe tables list lake', 'floe tables list lake --namespace demo --json | jq -r ".tables[].table"']);

  examples(tables.command('create')
    .description('make a table (its namespace too, when missing)')
    .argument('<catalog>', 'catalog name or id')
    .argument('<table>', 'namespace.table (the last dot ends the namespace)')
    .option('--columns <spec>', 'the columns as name:type, comma-separated; name:type! is required (types: boolean int long float double date time timestamp timestamptz string uuid binary decimal(P,S))', parseColumns)
    .option('--schema <file|json>', 'an Iceberg struct schema as JSON, inline or in a file, instead of --columns')
    .option('--format-version <n>', '2 or 3 (default: the catalog\'s default format version)', parseFormatVersion)
    .action(act(io, async (c, catalog: string, tableArg: string, opts: { columns?: StructSchema; schema?: string; formatVersion?: FormatVersion }) => {
      const table = parseTableName(tableArg);
      if (Boolean(opts.columns) === Boolean(opts.schema)) throw usageError('give the columns with exactly one of --columns and --schema', 'For example: --columns "id:long!,msg:string,at:timestamptz"');
      const schema = opts.columns ?? await schemaOption(opts.schema ?? '');
      const { api } = await c.session();
      const body = { warehouse_id: catalog, namespace: table.namespace.join('.'), name: table.name, schema, ...(opts.formatVersion ? { format_version: opts.formatVersion } : {}) };
      // One key for this run: a retry of the same request answers the first answer instead of failing on the table it made.
      const made = await ok(api.http.POST('/v1/tables', { body, headers: { 'Idempotency-Key': randomUUID() } }));
      c.out.result(made, (t) => {
        c.out.fields([['table', t.table], ['catalog', t.warehouse], ['format_version', t.format_version], ['location', t.location], ['table_uuid', t.table_uuid]]);
        for (const w of t.warnings ?? []) c.out.note(`warning: ${w}`);
        c.out.note(t.note);
      });
    })), [
    'floe tables create lake demo.events --columns "id:long!,msg:string,at:timestamptz"',
    'floe tables create lake sales.orders --columns "id:long!,amount:decimal(10,2)" --format-version 3',
    'floe tables create lake demo.events --schema schema.json',
  ]);

  examples(tables.command('show')
    .description('show a table: its columns, rows, snapshots and properties')
    .argument('<catalog>', 'catalog name or id')
    .argument('<table>', 'namespace.table')
    .action(act(io, async (c, catalog: string, tableArg: string) => {
      const table = parseTableName(tableArg);
      const { api } = await c.session();
      const t = await ok(api.http.GET('/v1/table', tableQuery(catalog, table)));
      c.out.result(t, (r) => {
        const partitioned = r.partition_spec.fields.map((f) => `${String(f.transform)}(${String(f.name)})`).join(', ');
        c.out.fields([
          ['table', r.table], ['catalog', r.warehouse], ['format_version', r.format_version], ['location', r.location],
          ['rows', r.rows === null ? 'unknown' : `${r.rows}${r.rows_is_exact ? '' : ' (at most)'}`], ['snapshots', r.snapshots], ['current_snapshot', r.current_snapshot_id],
          ['data_files', r.data_files], ['partitioned_by', partitioned || 'nothing'], ['properties', Object.keys(r.properties).length ? r.properties : undefined],
        ]);
        c.out.line('');
        c.out.table(['ID', 'COLUMN', 'TYPE', 'REQUIRED'], r.schema.map((f) => [f.id, f.name, typeText(f.type), f.required ? 'yes' : 'no']));
        if (r.rows_note) c.out.note(r.rows_note);
        for (const w of r.warnings ?? []) c.out.note(`warning: ${w}`);
      });
    })), ['floe tables show lake demo.events', 'floe tables show lake demo.events --json | jq .schema']);

  examples(tables.command('drop')
    .description('drop a table and purge its files')
    .argument('<catalog>', 'catalog name or id')
    .argument('<table>', 'namespace.table')
    .action(act(io, async (c, catalog: string, tableArg: string) => {
      const table = parseTableName(tableArg);
      const name = tableNameText(table);
      await c.confirm(`Drop table ${name} from catalog ${catalog} and delete its files for good`, name);
      const { api } = await c.session();
      const dropped = await ok(api.http.DELETE('/v1/table', tableQuery(catalog, table)));
      c.out.result(dropped, (d) => c.out.note(`Dropped ${d.table} from ${d.warehouse}. ${d.purge.note}`));
    })), ['floe tables drop lake demo.scratch', 'floe tables drop lake demo.scratch --yes']);
}
