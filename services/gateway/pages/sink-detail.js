// One sink (sinks.html?sink=<id>): its state and counts, recent rejects with
// reasons and example rows, how to send, a dry run of a batch, and deleting
// it; its device URL is sink-device.js. Its own file because it is one of the
// page's two views; the list and making a sink are sink-list.js.
import {
  actionButton, ago, bytes, call, catalogTabs, confirmTyped, copyable, empty, facts, field, form, h, here, plural, section, table, when,
} from '/app/console.js';
import { deviceSection } from '/app/sink-device.js';
import { sampleRow, sendCommand, sendHint, tableOf } from '/app/sink-send.js';
import {
  enc, freshnessWords, lastRollWords, rollPolicyWords, stateBadge,
} from '/app/sink-words.js';

const notFound = () => Object.assign(new Error('No such sink in this catalog.'), { status: 404, code: 'sink_not_found' });

function factsSection(sink, tableInfo) {
  const pairs = [
    ['State', stateBadge(sink)],
    ['Table', sink.table],
    ['Rows in the table', tableInfo ? `${tableInfo.rows ?? '—'}${tableInfo.rows_is_exact === false ? ' (estimate)' : ''}` : '—'],
    ['Made', when(sink.created_at)],
    ['Rolls', `${sink.roll.count} so far; ${rollPolicyWords(sink.roll)}`],
    ['Last roll', sink.last_roll ? [when(sink.last_roll.at), ` (${ago(sink.last_roll.at)}): ${lastRollWords(sink.last_roll)}`] : 'not yet'],
    ['Freshness', freshnessWords(sink)],
    ['Waiting', `${plural(sink.lag.batches_waiting, 'batch', 'batches')}, ${bytes(sink.lag.bytes_waiting)}${sink.lag.oldest_waiting_at ? `, oldest from ${ago(sink.lag.oldest_waiting_at)}` : ''}`],
    ['Last hour', `${plural(sink.freshness.batches_committed_last_hour, 'batch', 'batches')} appended${sink.freshness.send_to_commit_p99_seconds_last_hour === null ? '' : `; 99% within ${sink.freshness.send_to_commit_p99_seconds_last_hour} s of sending`}`],
    ['Rows received', `${sink.received.rows} in ${plural(sink.received.batches, 'batch', 'batches')} (${sink.received.device_batches} by the device URL), ${bytes(sink.received.bytes)}`],
    ['Refused on arrival', `${plural(sink.received.rejected_elements, 'element')} that were not JSON objects`],
    ['Rejected at rolls', `${plural(sink.rejects.rows, 'row')} in ${plural(sink.rejects.files, 'reject file')}`],
    ['Table changes', sink.table_changes.applied ? `${sink.table_changes.add_column} added, metadata retention set` : `the first roll adds ${sink.table_changes.add_column} and sets metadata retention`],
  ];
  return section('facts-title', 'State and counts', facts(pairs));
}

function sendSection(sink, tableInfo) {
  return section('send-title', 'Sending rows',
    h('p', {}, 'POST a JSON array of objects to the send URL with the sink’s send key (shown once, when the sink was made; key id ', h('code', {}, sink.send_key_id), ').'),
    copyable(sink.send_url, 'send URL'),
    copyable(sendCommand(sink.send_url, '$FLOE_SEND_KEY', [sampleRow(tableInfo)]), 'curl command'),
    sendHint());
}

function rejectRoll(r, i) {
  return h('div', { class: 'reject-roll', dataset: { snapshot: r.snapshot_id ?? '' } },
    h('h3', { id: `rejects-${i}` }, 'Roll of ', when(r.at), `: ${plural(r.rows, 'row')} rejected`),
    table(`rejects-${i}`, ['Reason', 'Rows'], Object.entries(r.reasons).map(([reason, n]) => [reason, String(n)])),
    r.examples.length ? [
      h('h4', { id: `examples-${i}` }, 'Example rows'),
      table(`examples-${i}`, ['Batch', 'Line', 'Reason', 'Row as sent'], r.examples.map((e) => [e.batch_id, String(e.line), e.reason, h('code', {}, e.raw)])),
    ] : null,
    r.file ? h('p', { class: 'hint' }, 'All of them: ', h('code', {}, r.file)) : null);
}

function rejectsSection(sink) {
  const { rejects } = sink;
  return section('rejects-title', 'Recent rejects',
    h('p', { class: 'hint' }, `Rows that do not fit the table’s schema at a roll are kept in reject files in the bucket ${rejects.bucket} under ${rejects.prefix} for ${rejects.age_out_days} days.`),
    rejects.recent.length ? rejects.recent.map(rejectRoll) : empty('No rows rejected yet.'));
}

/** The rows typed in the test box: JSON (an array or one object), or NDJSON, one object a line. */
function parseRows(text) {
  const t = text.trim();
  if (!t) throw new Error('Type or paste at least one row.');
  try {
    return JSON.parse(t);
  } catch { /* not one JSON value: read it as NDJSON */ }
  return t.split('\n').map((line, i) => [line.trim(), i + 1]).filter(([line]) => line).map(([line, n]) => {
    try {
      return JSON.parse(line);
    } catch (err) {
      throw new Error(`Line ${n} is not JSON (${err.message}); write one object a line, or one JSON array.`);
    }
  });
}

const STAGES = { intake: 'refused on arrival', schema: 'would be rejected at the roll' };

function verdictOf(answer, sent) {
  const rows = Array.isArray(sent) ? sent : [sent];
  const why = new Map(answer.reasons.map((r) => [r.index, r]));
  const cols = answer.columns.map((c) => `${c.name} (${c.type}${c.required ? ', required' : ''})`).join(', ');
  return [
    h('h3', { id: 'verdict-title' }, `${answer.accepted} of ${plural(answer.elements, 'row')} fit; ${answer.rejected} ${answer.rejected === 1 ? 'does' : 'do'} not`),
    table('verdict-title', ['Row', 'As sent', 'Verdict'],
      Array.from({ length: answer.elements }, (_, i) => [
        String(i + 1),
        h('code', {}, rows[i] === undefined ? '—' : JSON.stringify(rows[i])),
        why.has(i) ? `does not fit: ${why.get(i).reason} (${STAGES[why.get(i).stage] ?? why.get(i).stage})` : 'fits',
      ]),
      { rowData: Array.from({ length: answer.elements }, (_, i) => ({ verdict: why.has(i) ? 'misfit' : 'fits' })) }),
    answer.device_answer.status === 401 ? h('p', { class: 'warn' }, 'The device URL would refuse this body: the required field’s pinned value does not match.') : null,
    h('p', { class: 'hint' }, `The table’s columns: ${cols}. ${answer.note}`),
  ];
}

function testSection(sink, tableInfo) {
  const result = h('div', { 'aria-live': 'polite' });
  const el = form({
    id: 'test-batch',
    submit: 'Test the batch',
    hint: 'A dry run against the sink’s options and the table’s current schema, as the next roll would judge it. Nothing is stored.',
    fields: [field('rows', 'Rows to test', {
      type: 'textarea', value: tableInfo ? JSON.stringify(sampleRow(tableInfo)) : '', hint: 'A JSON array of objects, one object, or NDJSON (one object a line).',
    })],
    onsubmit: async (v) => {
      result.replaceChildren();
      const rows = parseRows(v.rows);
      const answer = await call('POST', `/v1/sinks/${enc(sink.sink_id)}/test`, rows);
      result.replaceChildren(...verdictOf(answer, rows).filter(Boolean));
    },
  });
  return section('test-title', 'Test a batch', el, result);
}

function deleteSection(ctx, sink) {
  let answer;
  return section('delete-title', 'Delete this sink',
    h('p', {}, 'Its send key and device URL are refused at once, and batches still waiting are discarded at the next roller tick. The table and the rows already in it stay.'),
    h('div', { class: 'actions' }, actionButton('Delete sink…', async () => {
      const done = await confirmTyped({
        title: `Delete sink ${sink.name}`,
        text: `The send key of ${sink.name} stops working at once; ${sink.table} keeps its rows.`,
        expected: sink.name,
        button: 'Delete sink',
        action: async () => { answer = await call('DELETE', `/v1/sinks/${enc(sink.sink_id)}`); },
      });
      if (!done) return;
      ctx.main.querySelector('h1').textContent = `Sink ${sink.name} deleted`;
      const said = h('p', { role: 'status', tabindex: '-1' },
        `Sink ${answer.name} is deleted; ${plural(answer.pending_batches_discarded, 'waiting batch', 'waiting batches')} discarded. ${answer.note}`);
      ctx.body.replaceChildren(ctx.body.firstChild, said, h('p', {}, h('a', { href: here({ sink: null }) }, 'Back to the sinks')));
      said.focus();
    }, { danger: true })));
}

/** The view of one sink: sets the heading and answers the nodes of the page body, in order (absent ones as null). */
export async function drawSink(ctx, { catalog, canWrite }, id) {
  const sink = await call('GET', `/v1/sinks/${enc(id)}`);
  if (sink.warehouse_id !== catalog.warehouse_id) throw notFound();
  const tableInfo = await tableOf(catalog, sink.table);
  ctx.heading = `Sink ${sink.name}`;
  return [
    catalogTabs(catalog, 'sinks'),
    h('p', {}, h('a', { href: here({ sink: null }) }, `All sinks of ${catalog.name}`)),
    factsSection(sink, tableInfo),
    rejectsSection(sink),
    sendSection(sink, tableInfo),
    testSection(sink, tableInfo),
    deviceSection(sink, canWrite, tableInfo),
    canWrite ? deleteSection(ctx, sink) : null,
  ];
}
