// The query box of a table's page (table.js): one read-only statement over
// the catalog's tables (POST /v1/query, run by the query worker), prefilled
// with the first 100 rows of this table, read at the current snapshot or at
// one picked from the page's timeline; the answer drawn as a table (each
// column's type under its name) with what was read: rows, truncation, time,
// bytes and the snapshot of each table. Values are always set as text. Its
// own file because table.js draws the table's metadata and is long already.
import { bytes, call, facts, field, form, h, plural, section, table } from '/app/console.js';

/** A name as SQL: bare when it is a plain lower-case identifier, else double-quoted. */
const ident = (name) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`);

/** The statement the box starts with: this table's first 100 rows. */
function firstRows(qualified) {
  const dot = qualified.lastIndexOf('.');
  return `SELECT * FROM ${ident(qualified.slice(0, dot))}.${ident(qualified.slice(dot + 1))} LIMIT 100`;
}

/** A value of a row as text: NULL marked, lists and structs as JSON (64-bit integers already come as strings). */
function cell(v) {
  if (v === null || v === undefined) return h('span', { class: 'null' }, 'NULL');
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** Each table the statement read, and the snapshot it read it at. */
function snapshotsRead(ids) {
  const read = Object.entries(ids);
  if (!read.length) return 'no table';
  return h('ul', {}, read.map(([name, id]) => h('li', { dataset: { table: name } },
    h('code', {}, name), id === null ? ': no snapshot yet (no rows)' : [' at ', h('code', {}, id)])));
}

function answerView(r) {
  const { queued_ms: queued, fetch_ms: fetched, run_ms: ran } = r.timing;
  return [
    facts([
      ['Rows returned', `${r.row_count}${r.truncated ? ' (truncated)' : ''}`],
      ['Elapsed', `${r.elapsed_ms} ms (waiting ${queued} ms, reading files ${fetched} ms, running ${ran} ms)`],
      ['Scanned', `${bytes(r.bytes_scanned)} in ${plural(r.files_scanned, 'file')}`],
      ['Snapshot read', snapshotsRead(r.snapshot_ids)],
      ['Statement run', h('code', {}, r.statement)],
    ]),
    r.truncated
      ? h('p', { class: 'warn truncated' }, `Truncated: more rows matched than came back. An answer stops at ${plural(r.limit, 'row')} or ${bytes(r.byte_limit)} of rows; narrow the statement (a filter, a LIMIT) or read the table with an engine.`)
      : null,
    h('h3', { id: 'query-rows-title' }, 'Rows'),
    r.columns.length
      ? table('query-rows-title', r.columns.map((c) => [h('span', { class: 'column-name' }, c.name), h('span', { class: 'column-type' }, c.type)]),
        r.rows.map((row) => r.columns.map((c) => cell(row[c.name]))))
      : null,
    r.row_count === 0 ? h('p', { class: 'empty' }, 'No rows.') : null,
  ];
}

/** The snapshot picker: the current one (nothing sent), or one of those the page lists. */
function snapshotField(t) {
  const options = t.snapshot_log.map((s) => {
    const id = String(s.snapshot_id);
    return [id, `${id}: ${s.operation}, ${new Date(s.committed_at).toLocaleString()}${s.current ? ' (current)' : ''}`];
  });
  return field('snapshot_id', 'Read at snapshot', {
    options: [['', 'The current snapshot'], ...options],
    hint: 'An older snapshot applies to a statement over this table alone.',
  });
}

/** The Query section of `t` (GET /v1/table's answer) in `catalog`. */
export function querySection(catalog, t) {
  const status = h('p', { role: 'status', 'aria-live': 'polite', class: 'query-status' });
  const answer = h('div', { class: 'query-answer' });
  const el = form({
    id: 'query',
    submit: 'Run',
    hint: 'One read-only SELECT naming the catalog\'s tables as namespace.table (joins, aggregates and WITH too). At most 2,000 rows come back.',
    fields: [
      field('sql', 'Statement', { type: 'textarea', value: firstRows(t.table), hint: 'Ctrl+Enter (⌘+Enter on a Mac) runs it.' }),
      t.snapshot_log.length ? snapshotField(t) : null,
    ],
    onsubmit: async (v) => {
      answer.replaceChildren();
      status.textContent = 'Running the statement…';
      try {
        const r = await call('POST', '/v1/query', { warehouse: catalog.warehouse_id, sql: v.sql, ...(v.snapshot_id ? { snapshot_id: v.snapshot_id } : {}) });
        answer.replaceChildren(...answerView(r).filter(Boolean));
        status.textContent = `${plural(r.row_count, 'row')}${r.truncated ? ' (truncated)' : ''} in ${r.elapsed_ms} ms.`;
      } catch (err) {
        status.textContent = 'The statement did not run.';
        throw err;
      }
    },
  });
  const sql = el.querySelector('textarea[name="sql"]');
  sql.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    if (!el.querySelector('button[type="submit"]').disabled) el.requestSubmit();
  });
  return section('query-title', 'Query', el, status, answer);
}
