// A catalog's sinks (sinks.html without &sink=): the list with each sink's
// table, state, last roll and freshness, and making a sink — its send key
// shown once, with a curl that sends a row. Its own file because it is one of
// the page's two views; one sink in detail is sink-detail.js.
import {
  call, catalogTabs, copyable, empty, failure, field, form, h, here, section, shownOnce, table, when,
} from '/app/console.js';
import { sampleRow, sendCommand, sendHint, tableOf } from '/app/sink-send.js';
import {
  enc, focusable, freshnessWords, lastRollWords, stateBadge,
} from '/app/sink-words.js';

/** The sink just made, with its send key shown once: kept in memory across redraws of the list until the person leaves; never stored. */
let justMade = null;

function sinksTable(sinks) {
  return table('sinks-title', ['Sink', 'Table', 'State', 'Last roll', 'Freshness', 'Rows received', 'Rows rejected'],
    sinks.map((s) => [
      h('a', { href: here({ sink: s.sink_id }) }, s.name), s.table, stateBadge(s),
      s.last_roll ? [when(s.last_roll.at), h('br'), lastRollWords(s.last_roll)] : 'not yet',
      freshnessWords(s), String(s.received.rows), String(s.rejects.rows),
    ]),
    { rowData: sinks.map((s) => ({ sink: s.name })) });
}

/** The panel after making a sink: its send key, once, and a curl that sends a row with it. */
function madePanel({ sink, tableInfo }) {
  return focusable(section('made-title', `Sink ${sink.name} is made`,
    h('p', {}, `Rows sent to its send URL with this key are appended to ${sink.table} at each roll.`),
    shownOnce(sink.send_key, 'send key'),
    h('h3', {}, 'Send a row'),
    copyable(sendCommand(sink.send_url, sink.send_key, [sampleRow(tableInfo)]), 'curl command', { secret: true }),
    sendHint(),
    h('p', {}, h('a', { href: here({ sink: sink.sink_id }) }, `Open ${sink.name}`), ' to see its rolls, rejects and device URL.')));
}

/** A sink name suggested from a table's name: the sink grammar is lowercase letters, digits, `_` and `-`, from a letter. */
function suggestedName(qualified) {
  const base = qualified.slice(qualified.lastIndexOf('.') + 1).toLowerCase().replace(/[^a-z0-9_-]/g, '_').slice(0, 63);
  return /^[a-z]/.test(base) ? base : `s_${base}`.slice(0, 63);
}

function createSection(ctx, catalog, tables, sinks) {
  const title = 'Make a sink';
  if (tables instanceof Error) return section('create-title', title, failure(tables));
  const taken = new Set(sinks.map((s) => s.table));
  const free = tables.filter((t) => !taken.has(t.table));
  if (!free.length) {
    return section('create-title', title,
      empty(tables.length ? 'Every table of this catalog has its sink already (one sink per table).' : 'This catalog has no tables yet.'),
      h('p', {}, h('a', { href: `/app/catalog?catalog=${enc(catalog.warehouse_id)}#tables` }, `Create a table in ${catalog.name}`), ', then come back.'));
  }
  const el = form({
    id: 'create-sink',
    submit: 'Make the sink',
    hint: 'A sink takes JSON rows over HTTPS and appends them to one existing, unpartitioned table at each roll.',
    fields: [
      field('table', 'Table', { options: free.map((t) => t.table) }),
      field('name', 'Sink name', { value: suggestedName(free[0].table), hint: '1 to 63 lowercase letters, digits, _ and -, starting with a letter; unique in this catalog.' }),
      field('roll_seconds', 'Roll every (seconds)', { type: 'number', value: '300', required: false, hint: 'At least 60; 300 when empty.' }),
      field('inactivity_seconds', 'Roll sooner after a quiet spell of (seconds)', { type: 'number', required: false, hint: 'Optional: roll once no new batch has come for this long.' }),
      field('roll_bytes', 'Roll once this many bytes wait', { type: 'number', value: '67108864', required: false, hint: '33554432 to 67108864 (32 to 64 MiB); 64 MiB when empty.' }),
    ],
    onsubmit: async (v) => {
      const body = { warehouse_id: catalog.warehouse_id, table: v.table, name: v.name.trim() };
      for (const k of ['roll_seconds', 'inactivity_seconds', 'roll_bytes']) {
        const raw = (v[k] ?? '').trim();
        // Whole numbers go as numbers; anything else is passed on for the API to refuse in words.
        if (raw) body[k] = /^\d+$/.test(raw) ? Number(raw) : raw;
      }
      const sink = await call('POST', '/v1/sinks', body);
      justMade = { sink, tableInfo: await tableOf(catalog, sink.table) };
      await ctx.refresh();
      document.getElementById('made-title')?.focus();
    },
  });
  // The name follows the chosen table until the person types one of their own.
  const name = el.querySelector('#f-name');
  let suggested = name.value;
  el.querySelector('#f-table').addEventListener('change', (event) => {
    if (name.value !== suggested) return;
    suggested = suggestedName(event.target.value);
    name.value = suggested;
  });
  return section('create-title', title, el);
}

/** The list view: sets the heading and answers the nodes of the page body, in order (absent ones as null). */
export async function drawList(ctx, { catalog, canWrite }) {
  const [listed, tables] = await Promise.all([
    call('GET', `/v1/sinks?warehouse=${enc(catalog.warehouse_id)}`).catch((err) => {
      if (err.code === 'not_found') return null;
      throw err;
    }),
    canWrite ? call('GET', `/v1/tables?warehouse_id=${enc(catalog.warehouse_id)}`).then((a) => a.tables, (err) => err) : null,
  ]);
  ctx.heading = `Sinks of ${catalog.name}`;
  const tabs = catalogTabs(catalog, 'sinks');
  if (!listed) return [tabs, empty('Sinks are switched off on this Floe deployment.')];
  const made = justMade?.sink.warehouse_id === catalog.warehouse_id ? justMade : null;
  return [
    tabs,
    h('p', { class: 'hint' }, 'A sink lets a producer without an engine POST JSON rows; a background roller appends them to one table.'),
    made ? madePanel(made) : null,
    section('sinks-title', 'Sinks', listed.sinks.length ? sinksTable(listed.sinks) : empty('No sinks in this catalog yet.')),
    canWrite
      ? createSection(ctx, catalog, tables, listed.sinks)
      : h('p', { class: 'hint' }, `Your level on ${catalog.name} is ${catalog.my_level}: you see its sinks and can test a batch against one; making, deleting and device URLs need write.`),
  ];
}
