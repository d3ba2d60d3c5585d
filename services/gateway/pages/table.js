// A table (table.html, /app/table?catalog=<warehouse_id>&table=<ns.name>):
// its schema with nested fields, partition spec, sort order and properties
// (GET /v1/table); its snapshots as a timeline, newest first, each with what
// it changed and what the table held after it (the API lists the newest 50),
// naming the sink or maintenance run that made it where Floe knows; its
// files and sizes; its maintenance health, the rules it crosses and the runs
// with their reasons (GET /v1/table/maintenance); and the sink feeding it
// (GET /v1/sinks); and a query box over its rows (table-query.js).
import { ago, bytes, call, catalogInView, catalogTabs, consolePage, empty, facts, failure, h, params, plural, section, table, when } from '/app/console.js';
import { querySection } from '/app/table-query.js';

const enc = encodeURIComponent;

const notFound = () => Object.assign(new Error('No table named in the address.'), { status: 404, code: 'table_not_found' });

// ── schema ──────────────────────────────────────────────────────────────────

/** An Iceberg type in words: a primitive's name, `struct`, `list<…>`, `map<…, …>`. */
function typeWords(type) {
  if (typeof type === 'string') return type;
  if (type?.type === 'struct') return 'struct';
  if (type?.type === 'list') return `list<${typeWords(type.element)}>`;
  if (type?.type === 'map') return `map<${typeWords(type.key)}, ${typeWords(type.value)}>`;
  return JSON.stringify(type);
}

/** The fields inside a nested type, as fields: a struct's own, a list's element, a map's key and value. */
function innerFields(type) {
  if (type?.type === 'struct') return type.fields;
  if (type?.type === 'list') return [{ id: type['element-id'], name: 'element', required: type['element-required'], type: type.element }];
  if (type?.type === 'map') {
    return [{ id: type['key-id'], name: 'key', required: true, type: type.key }, { id: type['value-id'], name: 'value', required: type['value-required'], type: type.value }];
  }
  return [];
}

function fieldItem(f, path, identifiers) {
  const at = path ? `${path}.${f.name}` : f.name;
  const inner = innerFields(f.type);
  return h('li', { dataset: { field: at } },
    h('span', { class: 'field-line' },
      h('code', {}, f.name), ' ', h('span', { class: 'type' }, typeWords(f.type)), ' ',
      f.required ? h('span', { class: 'badge' }, 'required') : h('span', { class: 'optional' }, 'optional'),
      identifiers.has(f.id) ? [' ', h('span', { class: 'badge' }, 'identifier')] : null,
      h('span', { class: 'field-id' }, ` · id ${f.id}`)),
    inner.length ? h('ul', {}, inner.map((c) => fieldItem(c, at, identifiers))) : null);
}

/** Every field by id, nested ones included, with its dotted path: what a partition field's source id names. */
function fieldPaths(fields, path = '', into = new Map()) {
  for (const f of fields) {
    const at = path ? `${path}.${f.name}` : f.name;
    into.set(f.id, at);
    fieldPaths(innerFields(f.type), at, into);
  }
  return into;
}

function schemaSection(t) {
  const identifiers = new Set(t.identifier_field_ids);
  return section('schema-title', 'Schema',
    h('ul', { class: 'schema', 'aria-labelledby': 'schema-title' }, t.schema.map((f) => fieldItem(f, '', identifiers))),
    h('p', { class: 'hint' }, `Format version ${t.format_version}. ${t.note}`),
    (t.warnings ?? []).map((w) => h('p', { class: 'warn' }, w)));
}

const DIRECTION = { asc: 'ascending', desc: 'descending' };
const NULLS = { 'nulls-first': 'nulls first', 'nulls-last': 'nulls last' };

function layoutSection(t) {
  const paths = fieldPaths(t.schema);
  const spec = t.partition_spec.fields;
  const order = t.sort_order.fields;
  const props = Object.entries(t.properties).sort(([a], [b]) => a.localeCompare(b));
  return [
    section('partition-title', 'Partition spec',
      spec.length
        ? table('partition-title', ['Partition field', 'Source column', 'Transform'], spec.map((p) => [p.name, paths.get(p['source-id']) ?? `field ${p['source-id']}`, p.transform]))
        : empty(`Not partitioned (spec ${t.partition_spec.spec_id}).`)),
    section('sort-title', 'Sort order',
      order.length
        ? table('sort-title', ['Source column', 'Transform', 'Direction', 'Nulls'], order.map((f) => [
          paths.get(f['source-id']) ?? `field ${f['source-id']}`, f.transform, DIRECTION[f.direction] ?? f.direction, NULLS[f['null-order']] ?? f['null-order'],
        ]))
        : empty(`Unsorted (sort order ${t.sort_order.order_id}).`)),
    section('properties-title', 'Properties',
      props.length ? table('properties-title', ['Property', 'Value'], props.map(([k, v]) => [h('code', {}, k), h('code', {}, String(v))])) : empty('No properties set.')),
  ];
}

// ── snapshots and files ─────────────────────────────────────────────────────

/** Who made a snapshot, where Floe knows: the feeding sink's last roll, and maintenance runs that committed one; by snapshot id. */
function makersBySnapshot(sinks, runs) {
  const by = new Map();
  for (const s of sinks) {
    const r = s.last_roll;
    if (r?.snapshot_id) by.set(String(r.snapshot_id), `by the sink ${s.name}: ${plural(r.rows, 'row')} appended from ${plural(r.batches, 'batch', 'batches')}, ${r.rejected_rows} rejected`);
  }
  for (const run of runs) {
    if (run.status !== 'done' || !run.snapshot_id) continue;
    by.set(String(run.snapshot_id), `by maintenance (${run.kind}): ${bytes(run.freed_bytes)} freed${run.reason ? `; ${run.reason}` : ''}`);
  }
  return by;
}

/** "+added / −removed" in `words`; nothing when the summary carries neither figure (Iceberg leaves out zeros, so one alone means the other is 0). */
function change(added, removed, words) {
  if (added === undefined && removed === undefined) return null;
  return `+${words(added ?? 0)} / −${words(removed ?? 0)}`;
}

/** What a snapshot changed, and what the table held after it, from its summary. */
function snapshotFigures(s) {
  const changed = [
    change(s.added_records, s.deleted_records, (n) => plural(n, 'row')),
    change(s.added_data_files, s.deleted_data_files, (n) => plural(n, 'file')),
    change(s.added_files_size, s.removed_files_size, bytes),
  ].filter(Boolean);
  const totals = [
    s.total_records === undefined ? null : plural(s.total_records, 'row'),
    s.total_data_files === undefined ? null : plural(s.total_data_files, 'data file'),
    s.total_files_size === undefined ? null : bytes(s.total_files_size),
  ].filter(Boolean);
  return [
    changed.length ? h('div', { class: 'change' }, changed.join(' · ')) : null,
    totals.length ? h('div', { class: 'totals' }, `After it: ${totals.join(', ')}`) : null,
  ];
}

function snapshotItem(s, makers) {
  const id = String(s.snapshot_id);
  const by = makers.get(id);
  return h('li', { dataset: { snapshot: id }, 'aria-current': s.current ? 'true' : null },
    h('div', {}, when(s.committed_at), ' ', h('strong', { class: 'operation' }, s.operation),
      s.current ? [' ', h('span', { class: 'badge' }, 'current')] : null,
      by ? [' ', h('span', { class: 'by' }, by)] : null),
    snapshotFigures(s),
    h('div', { class: 'hint' }, 'Snapshot ', h('code', {}, id),
      s.parent_snapshot_id === null ? ' (the first)' : [', after ', h('code', {}, String(s.parent_snapshot_id))]));
}

function snapshotsSection(t, health, sinks, runs) {
  const log = t.snapshot_log;
  const makers = makersBySnapshot(sinks, runs);
  return section('snapshots-title', 'Snapshots',
    facts([
      ['Snapshots', String(t.snapshots)],
      ['Current snapshot', t.current_snapshot_id === null ? 'none' : h('code', {}, String(t.current_snapshot_id))],
      health ? ['Oldest snapshot', health.oldest_snapshot_at ? [when(health.oldest_snapshot_at), ` (${ago(health.oldest_snapshot_at)})`] : 'none'] : null,
    ]),
    t.snapshots === 0
      ? empty('No snapshots yet: the table holds no data. Append rows with an engine, or through a sink.')
      : [
        t.snapshots > log.length
          ? h('p', { class: 'hint' }, `The newest ${log.length} of ${t.snapshots} snapshots. An engine lists them all (the $snapshots metadata table in Spark and Trino, iceberg_snapshots() in DuckDB).`)
          : null,
        h('ul', { class: 'timeline', 'aria-label': 'Snapshots, newest first' }, log.map((s) => snapshotItem(s, makers))),
      ]);
}

function rowsWords(t) {
  if (t.rows === null) return 'unknown';
  return `${t.rows}${t.rows_is_exact ? '' : ' (at most)'}`;
}

function filesSection(t, health) {
  return section('files-title', 'Rows and files',
    facts([
      ['Rows', rowsWords(t)],
      t.rows_note ? ['About the rows', t.rows_note] : null,
      ['Data files', t.data_files === null ? '—' : String(t.data_files)],
      ['Delete files', t.delete_files === null ? '—' : String(t.delete_files)],
      health ? ['Data size', bytes(health.data_bytes)] : null,
      health ? ['Average file', bytes(health.avg_file_bytes)] : null,
      health ? ['Small files', health.small_files === null ? 'not counted yet' : [String(health.small_files), health.small_files_as_of ? [' as of ', when(health.small_files_as_of)] : '']] : null,
      health ? ['Manifests', health.manifests === null ? '—' : String(health.manifests)] : null,
      health ? ['Metadata files', String(health.metadata_files)] : null,
      ['Location', h('code', {}, t.location)],
      ['Table UUID', h('code', {}, t.table_uuid)],
    ]));
}

// ── maintenance and the sink ────────────────────────────────────────────────

function triggerWords(trigger) {
  if (!trigger || typeof trigger !== 'object') return trigger ? String(trigger) : '—';
  const detail = trigger.detail === undefined || trigger.detail === null ? '' : typeof trigger.detail === 'string' ? trigger.detail : JSON.stringify(trigger.detail);
  return [trigger.type, detail].filter(Boolean).join(': ') || '—';
}

function maintenanceSection(m, running) {
  if (m instanceof Error) return section('maintenance-title', 'Maintenance', failure(m));
  const { health } = m;
  return section('maintenance-title', 'Maintenance',
    facts([
      ['Running now', running ? 'yes' : 'no'],
      ['Due', health.due.length ? h('ul', {}, health.due.map((d) => h('li', {}, h('strong', {}, d.kind), `: ${d.rule}`))) : 'nothing'],
      ['Next eligible', [when(health.next_eligible_at)]],
      ['Promised', `compaction to ${m.maintenance.target_file_size_mb} MB files; snapshots kept ${m.maintenance.snapshot_retention_days} days, at most ${m.maintenance.max_snapshots}`],
    ]),
    h('h3', { id: 'runs-title' }, 'Runs'),
    m.runs.length
      ? table('runs-title', ['Kind', 'Status', 'Why', 'Reason', 'Started', 'Finished', 'Freed'],
        m.runs.map((r) => [r.kind, r.status, triggerWords(r.trigger), r.reason ?? '—', when(r.started_at), when(r.finished_at), bytes(r.freed_bytes)]),
        { rowData: m.runs.map((r) => ({ run: r.run_id })) })
      : empty('No maintenance runs yet.'),
    h('details', {}, h('summary', {}, 'The rules'), h('ul', {}, m.rules.map((r) => h('li', {}, r))), h('p', { class: 'hint' }, m.note)));
}

function sinkSection(catalog, sinks, canWrite) {
  const sinksAt = `/app/sinks?catalog=${enc(catalog.warehouse_id)}`;
  if (sinks === null) return section('sink-title', 'Fed by', empty('Sinks are switched off on this Floe deployment.'));
  return section('sink-title', 'Fed by',
    sinks.length
      ? table('sink-title', ['Sink', 'State', 'Last roll', 'Waiting'], sinks.map((s) => [
        h('a', { href: `${sinksAt}&sink=${enc(s.sink_id)}` }, s.name),
        s.disabled_reason ? `${s.state}: ${s.disabled_reason}` : s.state,
        s.last_roll ? [when(s.last_roll.at), `: ${plural(s.last_roll.rows, 'row')} appended`] : 'not yet',
        plural(s.lag.batches_waiting, 'batch', 'batches'),
      ]), { rowData: sinks.map((s) => ({ sink: s.name })) })
      : [empty('No sink feeds this table.'), canWrite ? h('p', {}, h('a', { href: sinksAt }, 'Make a sink'), ' to send it JSON rows over HTTPS.') : null]);
}

await consolePage({
  area: 'home',
  title: 'Table',
  render: async (ctx) => {
    const { catalog, canWrite } = await catalogInView(ctx);
    const qualified = params.get('table') ?? '';
    const dot = qualified.lastIndexOf('.');
    if (dot <= 0) throw notFound();
    const q = `warehouse_id=${enc(catalog.warehouse_id)}&namespace=${enc(qualified.slice(0, dot))}&name=${enc(qualified.slice(dot + 1))}`;
    const [t, m, listed] = await Promise.all([
      call('GET', `/v1/table?${q}`),
      call('GET', `/v1/table/maintenance?${q}`).catch((err) => err),
      call('GET', `/v1/sinks?warehouse=${enc(catalog.warehouse_id)}`).catch((err) => {
        if (err.code === 'not_found') return null;
        throw err;
      }),
    ]);
    const sinks = listed ? listed.sinks.filter((s) => s.table === t.table && s.state !== 'deleted') : null;
    const health = m instanceof Error ? null : m.health;
    ctx.heading = t.table;
    ctx.body.append(...[
      catalogTabs(catalog, 'table'),
      h('p', {}, h('a', { href: `/app/catalog?catalog=${enc(catalog.warehouse_id)}#tables` }, `All tables of ${catalog.name}`)),
      schemaSection(t),
      querySection(catalog, t),
      ...layoutSection(t),
      snapshotsSection(t, health, sinks ?? [], m instanceof Error ? [] : m.runs),
      filesSection(t, health),
      maintenanceSection(m, t.maintenance?.running ?? false),
      sinkSection(catalog, sinks, canWrite),
    ].flat().filter(Boolean));
  },
});
