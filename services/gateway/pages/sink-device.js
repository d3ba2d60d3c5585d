// One sink's device URL (sinks.html?sink=<id>): whether one is set, making a
// device token (its URL shown once, with a curl) and revoking it. Its own file
// because the section redraws only itself, apart from the rest of the sink's
// view (sink-detail.js), so a batch being tested there keeps its rows and verdict.
import {
  actionButton, call, copyable, empty, field, form, h, section, shownOnce, when,
} from '/app/console.js';
import { sampleRow, shellQuote } from '/app/sink-send.js';
import { enc, focusable } from '/app/sink-words.js';

const PRESETS = [['as_is', 'As sent'], ['flatten', 'Flatten nested objects'], ['wrap', 'Wrap each element in one column']];

function optionsWords(o) {
  const parts = [`mapping ${PRESETS.find(([k]) => k === o.preset)?.[1].toLowerCase() ?? o.preset}`];
  if (o.required_field) parts.push(`requires ${o.required_field}${o.pinned ? ' (pinned to a secret value)' : ''}`);
  if (o.strip_fields.length) parts.push(`strips ${o.strip_fields.join(', ')}`);
  return parts.join('; ');
}

function deviceForm(sink, onMinted) {
  const enabled = sink.device.enabled;
  return form({
    id: 'device-token',
    submit: enabled ? 'Replace the device token' : 'Make a device token',
    hint: enabled ? 'A new token replaces the current one at once: the old URL is refused from then on.' : null,
    fields: [
      field('preset', 'Mapping of each element', { options: PRESETS, value: enabled ? sink.device.options.preset : 'as_is' }),
      field('required_field', 'Required field', { required: false, hint: 'Optional: elements without this field are turned away.' }),
      field('strip_fields', 'Fields to strip', { required: false, hint: 'Optional: names separated by commas, removed before storing.' }),
    ],
    onsubmit: async (v) => {
      const body = { preset: v.preset };
      if (v.required_field.trim()) body.required_field = v.required_field.trim();
      const strip = v.strip_fields.split(',').map((s) => s.trim()).filter(Boolean);
      if (strip.length) body.strip_fields = strip;
      await onMinted(await call('POST', `/v1/sinks/${enc(sink.sink_id)}/device-token`, body));
    },
  });
}

/**
 * The device URL: whether one is set, making (its URL shown once) and
 * revoking it. It redraws only itself, so a batch being tested above keeps
 * its rows and verdict.
 */
export function deviceSection(sink, canWrite, tableInfo, { minted = null, revoked = null } = {}) {
  const d = sink.device;
  async function redraw(news) {
    // The token is already made or revoked: a failed re-read must not lose the URL shown once, so the old figures stand in.
    const fresh = await call('GET', `/v1/sinks/${enc(sink.sink_id)}`).catch(() => sink);
    const next = deviceSection(fresh, canWrite, tableInfo, news);
    el.replaceWith(next);
    next.querySelector('h2').focus();
  }
  const el = focusable(section('device-title', 'Device URL',
    h('p', { class: 'hint' }, 'For things that cannot set headers (a sensor, a web form, a webhook): the URL itself is the credential. Bodies may be JSON, NDJSON, CSV or a form, up to 256 KiB.'),
    minted ? [
      shownOnce(minted.device_url, 'device URL'),
      copyable(`curl -H 'Content-Type: application/json' -d ${shellQuote(JSON.stringify(sampleRow(tableInfo)))} ${shellQuote(minted.device_url)}`, 'device curl command', { secret: true }),
      h('p', { class: 'hint' }, minted.note),
    ] : null,
    revoked ? h('p', { role: 'status' }, `Device token revoked. ${revoked.note}`) : null,
    d.enabled
      ? h('dl', { class: 'facts' },
        h('dt', {}, 'URL'), h('dd', {}, h('code', {}, d.url)),
        h('dt', {}, 'Token made'), h('dd', {}, when(d.token_created_at)),
        h('dt', {}, 'Options'), h('dd', {}, optionsWords(d.options)))
      : empty('No device URL: device posts to this sink are refused.'),
    canWrite ? deviceForm(sink, (answer) => redraw({ minted: answer })) : null,
    canWrite && d.enabled ? h('div', { class: 'actions' }, actionButton('Revoke the device token', async () => {
      await redraw({ revoked: await call('DELETE', `/v1/sinks/${enc(sink.sink_id)}/device-token`) });
    }, { secondary: true, danger: true })) : null));
  return el;
}
