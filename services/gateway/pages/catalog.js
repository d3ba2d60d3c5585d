// A catalog (catalog.html, /app/catalog?catalog=<warehouse_id>): its facts,
// a connection recipe per engine, its namespaces and tables (making one with
// the CLI's `--columns` spelling), and what its holders may change: rotating
// the catalog credentials (write level), making it public or private again
// and deleting it (admins of the organisation). Each action is offered only
// to whom the API lets do it; the API still judges every call.
import {
  actionButton, ago, bytes, call, catalogInView, catalogTabs, confirmTyped, credentialPair, consolePage, copyable, empty, facts, failure, field, form, h, section, table, when,
} from '/app/console.js';

const enc = encodeURIComponent;

/** What the last publish or unpublish said: shown once above the redrawn page. */
let notice = null;

/** A definition list of [term, value] pairs; a value may be text, an element or (nested) arrays of them. */
// ── facts ───────────────────────────────────────────────────────────────────

function sizeWords(stored) {
  if (stored.unmetered) return stored.measuring ? 'measuring… (the first measurement is on its way)' : 'not measured yet';
  return `${bytes(stored.bytes)}${stored.complete ? '' : ' (at least)'}: tables ${bytes(stored.table_bytes)}, blobs ${bytes(stored.blob_bytes)}`;
}

function measuredWords(stored) {
  if (!stored.measured_at) return 'never';
  const stale = stored.stale_after && Date.parse(stored.stale_after) < Date.now();
  return [when(stored.measured_at), ` (${ago(stored.measured_at)})`, stale ? ' — stale: the hourly sweep measures it again' : ''];
}

function factsOf(catalog) {
  return facts([
    ['Status', catalog.status],
    ['Tier', catalog.public ? 'public' : 'private'],
    catalog.public ? ['Public since', when(catalog.public_since)] : null,
    ['Size', sizeWords(catalog.stored)],
    ['Measured', measuredWords(catalog.stored)],
    ['Your level', `${catalog.my_level}${catalog.my_via ? ` (${catalog.my_via})` : ''}`],
    ['Table bucket', catalog.bucket],
    ['Blob bucket', catalog.blob_bucket],
    ['Project', catalog.project],
    ['Default format version', String(catalog.default_format_version)],
    ['Created', when(catalog.created_at)],
    ['Catalog id', h('code', {}, catalog.warehouse_id)],
  ]);
}

// ── connecting an engine ────────────────────────────────────────────────────

const ENGINES = [['duckdb', 'DuckDB'], ['pyiceberg', 'PyIceberg'], ['spark', 'Spark'], ['snowflake', 'Snowflake (read-only)']];
const engineLabel = (engine) => ENGINES.find(([k]) => k === engine)?.[1].replace(' (read-only)', '') ?? engine;

function recipeView(c) {
  const label = engineLabel(c.engine);
  return [
    h('p', {}, `${label} with the ${c.level === 'write' ? 'read/write' : 'read-only'} catalog credential `, h('code', {}, c.catalog_credential.client_id), '.'),
    copyable(c.recipe, `${label} recipe`, { secret: true }),
    h('p', { class: 'hint' }, 'The recipe holds the catalog’s current credential, the same each time it is shown here until the credentials are rotated. ', c.note),
    facts([['Catalog URI', h('code', {}, c.catalog_uri)], ['Warehouse', h('code', {}, c.warehouse_param)], ['Storage', `${c.s3.endpoint} (${c.s3.region}, path-style)`]]),
  ];
}

/** The recipe section; `load()` (re)reads the recipe for the engine and access chosen, e.g. after a rotation. */
function connectSection(catalog, canWrite) {
  const out = h('div', { 'aria-live': 'polite', class: 'recipe' });
  const engine = h('select', { id: 'engine', name: 'engine', onchange: () => load() }, ENGINES.map(([v, l]) => h('option', { value: v }, l)));
  const access = canWrite
    ? h('select', { id: 'access', name: 'access', onchange: () => load() }, h('option', { value: '' }, 'read/write'), h('option', { value: 'read' }, 'read-only'))
    : null;
  async function load() {
    out.replaceChildren(h('p', { class: 'hint' }, 'Reading the recipe…'));
    const q = `warehouse_id=${enc(catalog.warehouse_id)}&engine=${enc(engine.value)}${access?.value ? `&level=${access.value}` : ''}`;
    try {
      out.replaceChildren(...recipeView(await call('GET', `/v1/connection?${q}`)));
    } catch (err) {
      out.replaceChildren(failure(err));
    }
  }
  const el = section('connect', 'Connect an engine',
    h('div', { class: 'filters' },
      h('div', { class: 'field' }, h('label', { for: 'engine' }, 'Engine'), engine),
      access ? h('div', { class: 'field' }, h('label', { for: 'access' }, 'Access'), access) : null),
    out);
  return { el, load };
}

// ── namespaces and tables ───────────────────────────────────────────────────

// The CLI's `--columns` spelling (packages/cli/src/table-schema.ts), read the same way here.
const PRIMITIVES = new Set(['boolean', 'int', 'long', 'float', 'double', 'date', 'time', 'timestamp', 'timestamptz', 'string', 'uuid', 'binary']);
const DECIMAL = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/;

const fieldError = (message, name) => Object.assign(new Error(message), { details: { field: name } });

function columnType(text, column) {
  const t = text.trim().toLowerCase();
  if (PRIMITIVES.has(t)) return t;
  const d = DECIMAL.exec(t);
  if (d && Number(d[1]) >= 1 && Number(d[1]) <= 38 && Number(d[2]) <= Number(d[1])) return `decimal(${Number(d[1])},${Number(d[2])})`;
  if (d) throw fieldError(`Column ${column}: decimal(P,S) takes a precision P from 1 to 38 and a scale S from 0 to P.`, 'columns');
  throw fieldError(`Column ${column}: unknown type "${text.trim()}"; the types are ${[...PRIMITIVES].join(', ')} and decimal(P,S).`, 'columns');
}

/** Splits on the commas between columns, not those inside `decimal(P,S)`. */
function columnTexts(spec) {
  const parts = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < spec.length; i++) {
    if (spec[i] === '(') depth++;
    else if (spec[i] === ')') depth = Math.max(0, depth - 1);
    else if (spec[i] === ',' && depth === 0) { parts.push(spec.slice(start, i)); start = i + 1; }
  }
  parts.push(spec.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** `id:long!,msg:string` (`!` marks a required column), or a JSON struct schema or its fields: the schema the create route takes. */
function schemaOf(text) {
  const t = text.trim();
  if (!t) throw fieldError('Give the columns, for example id:long!,msg:string.', 'columns');
  if (t.startsWith('{') || t.startsWith('[')) {
    let parsed;
    try { parsed = JSON.parse(t); } catch (err) { throw fieldError(`The schema is not JSON: ${err.message}.`, 'columns'); }
    const schema = Array.isArray(parsed) ? { type: 'struct', fields: parsed } : parsed;
    if (!Array.isArray(schema?.fields) || !schema.fields.length) throw fieldError('A JSON schema needs a non-empty "fields" array.', 'columns');
    return { ...schema, type: 'struct' };
  }
  const names = new Set();
  const fields = columnTexts(t).map((col, i) => {
    const colon = col.indexOf(':');
    const name = colon < 0 ? '' : col.slice(0, colon).trim();
    if (!name) throw fieldError(`Column ${i + 1}: write it as name:type (or name:type! when required), not "${col}".`, 'columns');
    if (names.has(name)) throw fieldError(`Column ${name} is named twice.`, 'columns');
    names.add(name);
    const typeText = col.slice(colon + 1).trim();
    const required = typeText.endsWith('!');
    return { id: i + 1, name, required, type: columnType(required ? typeText.slice(0, -1) : typeText, name) };
  });
  return { type: 'struct', 'schema-id': 0, fields };
}

const tableHref = (catalog, qualified) => `/app/table?catalog=${enc(catalog.warehouse_id)}&table=${enc(qualified)}`;

async function tablesList(catalog) {
  const q = `warehouse_id=${enc(catalog.warehouse_id)}`;
  const [{ namespaces }, { tables }] = await Promise.all([call('GET', `/v1/namespaces?${q}`), call('GET', `/v1/tables?${q}`)]);
  if (!namespaces.length) return empty('No tables yet.');
  const rows = [];
  const rowData = [];
  for (const { namespace } of [...namespaces].sort((a, b) => a.namespace.localeCompare(b.namespace))) {
    const inside = tables.filter((t) => t.namespace === namespace).sort((a, b) => a.name.localeCompare(b.name));
    if (!inside.length) { rows.push(['—', namespace]); rowData.push({ namespace }); }
    for (const t of inside) { rows.push([h('a', { href: tableHref(catalog, t.table) }, t.table), namespace]); rowData.push({ table: t.table }); }
  }
  return table('tables', ['Table', 'Namespace'], rows, { rowData });
}

function createTableForm(catalog, onMade) {
  return form({
    id: 'create-table',
    submit: 'Create the table',
    hint: 'An empty Iceberg table; its namespace is made when it does not exist yet.',
    fields: [
      field('table', 'Table (namespace.name)', { placeholder: 'events.clicks', hint: 'Nested namespaces join their levels with dots: the last dot separates the table’s name.' }),
      field('columns', 'Columns', {
        type: 'textarea', value: 'id:long!,msg:string',
        hint: 'name:type separated by commas, ! after a required column’s type (types: boolean, int, long, float, double, date, time, timestamp, timestamptz, string, uuid, binary, decimal(P,S)); or a JSON struct schema for nested types.',
      }),
      field('format_version', 'Format version', { options: [['', `The catalog’s default (${catalog.default_format_version})`], ['2', '2'], ['3', '3']], value: '' }),
    ],
    onsubmit: async (v, el) => {
      const qualified = v.table.trim();
      const dot = qualified.lastIndexOf('.');
      if (dot <= 0 || dot === qualified.length - 1) throw fieldError('Name the table as namespace.name, for example events.clicks.', 'table');
      const body = { warehouse_id: catalog.warehouse_id, namespace: qualified.slice(0, dot), name: qualified.slice(dot + 1), schema: schemaOf(v.columns) };
      if (v.format_version) body.format_version = Number(v.format_version);
      const made = await call('POST', '/v1/tables', body);
      el.querySelector('#f-table').value = '';
      await onMade(made);
    },
  });
}

function tablesSection(catalog, canWrite) {
  const list = h('div');
  const said = h('p', { role: 'status' });
  async function redraw() {
    try {
      list.replaceChildren(await tablesList(catalog));
    } catch (err) {
      list.replaceChildren(failure(err));
    }
  }
  const el = section('tables', 'Tables', said, list,
    canWrite
      ? [h('h3', {}, 'Create a table'), createTableForm(catalog, async (made) => {
        await redraw();
        said.replaceChildren(`Table ${made.table} created (format version ${made.format_version}). `, h('a', { href: tableHref(catalog, made.table) }, `Open ${made.table}`));
      })]
      : h('p', { class: 'hint' }, `Your level on ${catalog.name} is ${catalog.my_level}: you read its tables; creating one needs write.`));
  return { el, redraw };
}

// ── credentials, public read, deletion ─────────────────────────────────────

function rotatedView(r) {
  return [
    h('h3', { id: 'rotated-title', tabindex: '-1' }, 'New catalog credentials'),
    h('p', {}, 'Rotated ', when(r.rotated_at), '. ', r.note),
    ...credentialPair(r),
    facts([
      ['Old read/write id', [h('code', {}, r.previous_client_id ?? '—'), r.previous_revoked ? ' — refused now' : ' — not yet refused']],
      ['Old read-only id', [h('code', {}, r.previous_client_id_ro ?? '—'), r.previous_ro_revocation ? [' — refused from about ', when(r.previous_ro_revocation.expected)] : '']],
    ]),
    r.warning ? h('p', { class: 'warn' }, r.warning) : null,
  ];
}

function credentialsSection(catalog, reloadRecipe) {
  const result = h('div');
  return section('credentials-title', 'Catalog credentials',
    h('p', {}, 'Engines sign in to the catalog with a read/write credential (t-…) or a read-only one (t-…-ro). Rotating replaces both: the old read/write one is refused at once and the old read-only one seconds later, so every engine using them needs the new ones.'),
    h('div', { class: 'actions' }, actionButton('Rotate credentials…', async () => {
      let answer;
      const done = await confirmTyped({
        title: `Rotate the credentials of ${catalog.name}`,
        text: `Every engine connected to ${catalog.name} with the current credentials loses access until it is given the new ones.`,
        expected: catalog.name,
        button: 'Rotate credentials',
        action: async () => { answer = await call('POST', `/v1/warehouses/${enc(catalog.warehouse_id)}/rotate`); },
      });
      if (!done) return;
      result.replaceChildren(...rotatedView(answer).filter(Boolean));
      result.querySelector('#rotated-title').focus();
      await reloadRecipe();
    }, { secondary: true })),
    result);
}

function publicSection(ctx, catalog) {
  const path = `/v1/warehouses/${enc(catalog.warehouse_id)}/public`;
  if (catalog.public) {
    return section('public-title', 'Public read',
      h('p', {}, `Anyone can read the files of ${catalog.name} without credentials; writes stay refused and the catalog itself stays private.`),
      catalog.public_url ? copyable(catalog.public_url, 'public URL') : null,
      catalog.public_note ? h('p', { class: 'hint' }, catalog.public_note) : null,
      h('div', { class: 'actions' }, actionButton('Make private', async () => {
        notice = (await call('DELETE', path)).note;
        await ctx.refresh();
      }, { secondary: true })));
  }
  return section('public-title', 'Public read',
    h('p', {}, `${catalog.name} is private: only its holders read it. Making it public lets anyone read its table files without credentials (writes stay refused), and its bytes count in the public tier.`),
    h('div', { class: 'actions' }, actionButton('Make public…', async () => {
      let answer;
      const done = await confirmTyped({
        title: `Make ${catalog.name} public`,
        text: `Anyone on the internet will be able to read every table file of ${catalog.name}.`,
        expected: catalog.name,
        button: 'Make public',
        action: async (typed) => { answer = await call('POST', path, { confirm: typed }); },
      });
      if (!done) return;
      notice = answer.note;
      await ctx.refresh();
    }, { secondary: true })));
}

function deleteSection(catalog, org) {
  return section('delete-title', 'Delete this catalog',
    h('p', {}, `Deleting takes ${catalog.name} away from everyone at once: engines, sinks and its credentials are refused. Its tables and files are removed when the grace period ends; until then an admin can restore it from Deleted catalogs.`),
    h('div', { class: 'actions' }, actionButton('Delete catalog…', async () => {
      const done = await confirmTyped({
        title: `Delete catalog ${catalog.name}`,
        text: `${catalog.name} and every table in it go away for everyone now, and for good once the grace period ends.`,
        expected: catalog.name,
        button: 'Delete catalog',
        action: async (typed) => { await call('DELETE', `/v1/warehouses/${enc(catalog.warehouse_id)}`, { confirm: typed }); },
      });
      if (done) location.assign(`/app/catalogs-deleted?org=${enc(org.org_id)}`);
    }, { danger: true })));
}

await consolePage({
  area: 'home',
  title: 'Catalog',
  render: async (ctx) => {
    const view = await catalogInView(ctx).catch((err) => {
      if (err.code === 'warehouse_deleting') return null;
      throw err;
    });
    if (!view) {
      ctx.body.append(h('div', { role: 'alert', class: 'failure' },
        h('p', {}, 'This catalog is being deleted. During its grace period an admin of its organisation can restore it.'),
        h('p', {}, h('a', { href: '/app/catalogs-deleted' }, 'Deleted catalogs'))));
      return;
    }
    const { catalog, org, isAdmin, canWrite } = view;
    const connect = connectSection(catalog, canWrite);
    const tables = tablesSection(catalog, canWrite);
    await Promise.all([connect.load(), tables.redraw()]);
    ctx.heading = catalog.name;
    const said = notice;
    notice = null;
    ctx.body.append(...[
      catalogTabs(catalog, 'catalog'),
      said ? h('p', { role: 'status' }, said) : null,
      factsOf(catalog),
      connect.el,
      tables.el,
      canWrite ? credentialsSection(catalog, connect.load) : null,
      isAdmin ? publicSection(ctx, catalog) : null,
      isAdmin ? deleteSection(catalog, org) : null,
    ].filter(Boolean));
  },
});
