// Lifecycle rules on the blobs page (blobs.html): the bucket's expiry rules as
// read back, adding one and removing one or all. Its own file because it is a
// section with its own state (the rules last read) and redraws, apart from the
// files and the uploaders.
import {
  call, confirmDialog, empty, failure, field, form, h, section, table,
} from '/app/console.js';
import { at, fill } from '/app/blob-api.js';

/** A rule as read back, as PUT takes it again (absent fields left out). */
const asRequest = (r) => Object.fromEntries(Object.entries({
  id: r.id ?? undefined, prefix: r.prefix || undefined, enabled: r.enabled, expire_days: r.expire_days ?? undefined,
  expire_date: r.expire_date ?? undefined, abort_incomplete_multipart_days: r.abort_incomplete_multipart_days ?? undefined,
}).filter(([, v]) => v !== undefined));

const wholeNumber = (text) => (text.trim() === '' ? undefined : Number(text));

export function lifecycle(catalog, first, canWrite) {
  const w = catalog.warehouse_id;
  const body = h('div');
  const said = h('p', { role: 'status', 'aria-live': 'polite' });
  let current = first;

  async function put(rules) {
    current = rules.length ? await call('PUT', at(w, '/lifecycle'), { rules }) : await call('DELETE', at(w, '/lifecycle'));
    draw();
  }

  const kept = () => current.rules.filter((r) => r.expressible).map(asRequest);

  function removeRule(rule) {
    return confirmDialog({
      title: `Remove rule ${rule.id ?? ''}?`,
      text: `Files under ${rule.prefix || 'the whole bucket'} stop expiring by this rule.`,
      button: 'Remove',
      action: async () => {
        await put(current.rules.filter((r) => r !== rule && r.expressible).map(asRequest));
        said.textContent = `Removed rule ${rule.id ?? ''}.`;
      },
    });
  }

  function clearAll() {
    return confirmDialog({
      title: 'Clear every lifecycle rule?',
      text: 'Nothing in the blob bucket expires afterwards.',
      button: 'Clear rules',
      action: async () => {
        const cleared = await call('DELETE', at(w, '/lifecycle'));
        current = cleared;
        said.textContent = `Removed ${cleared.rules_removed} rule${cleared.rules_removed === 1 ? '' : 's'}; nothing expires now.`;
        draw();
      },
    });
  }

  const describe = (r) => [
    r.expire_days ? `expire ${r.expire_days} day${r.expire_days === 1 ? '' : 's'} after upload` : r.expire_date ? `expire on ${r.expire_date}` : null,
    r.abort_incomplete_multipart_days ? `abort unfinished uploads after ${r.abort_incomplete_multipart_days} day${r.abort_incomplete_multipart_days === 1 ? '' : 's'}` : null,
    r.expressible ? null : `made elsewhere: ${(r.other ?? ['filters']).join(', ')}`,
  ].filter(Boolean).join('; ') || '—';

  function draw() {
    if (current instanceof Error) return body.replaceChildren(failure(current));
    const foreign = current.rules.filter((r) => !r.expressible).length;
    fill(body,
      h('p', { class: 'hint' }, current.note),
      current.rules.length
        ? table('lifecycle-title', ['Rule', 'Folder', 'What it does', 'Enabled', ...(canWrite ? ['Actions'] : [])], current.rules.map((r) => [
          r.id ?? '—', r.prefix || 'whole bucket', describe(r), r.enabled ? 'yes' : 'no',
          ...(canWrite ? [r.expressible ? h('button', { type: 'button', class: 'secondary danger', 'aria-label': `Remove rule ${r.id ?? ''}`, onclick: () => removeRule(r) }, 'Remove') : ''] : []),
        ]), { rowData: current.rules.map((r) => ({ rule: r.id ?? '' })) })
        : empty('No rules: nothing in the blob bucket expires.'),
      canWrite && current.rules.length ? h('div', { class: 'actions' }, h('button', { type: 'button', class: 'secondary danger', onclick: clearAll }, 'Clear all rules')) : null,
      canWrite && foreign ? h('p', { class: 'warn' }, `Adding or removing a rule here drops the ${foreign} rule${foreign === 1 ? '' : 's'} made elsewhere that this page cannot express.`) : null);
  }
  draw();

  const add = canWrite ? form({
    id: 'lifecycle-form',
    submit: 'Add rule',
    hint: 'Deletion happens up to 24 hours after a file is due, and is permanent.',
    fields: [
      field('rule_prefix', 'Folder the rule covers', { required: false, hint: 'The files the rule covers, e.g. tmp/. An expiry may not cover _sink/, so a whole-bucket rule can only abort unfinished uploads.' }),
      field('expire_days', 'Expire files after (days)', { type: 'number', required: false }),
      field('expire_date', 'Or expire files on (date)', { type: 'date', required: false }),
      field('abort_days', 'Abort unfinished uploads after (days)', { type: 'number', required: false }),
      field('rule_id', 'Rule name', { required: false, hint: 'Optional; Floe names it by its position otherwise.' }),
    ],
    onsubmit: async (values, el) => {
      if (current instanceof Error) throw current;
      const rule = asRequest({
        id: values.rule_id.trim() || undefined, prefix: values.rule_prefix.trim(), enabled: true, expire_days: wholeNumber(values.expire_days),
        expire_date: values.expire_date || undefined, abort_incomplete_multipart_days: wholeNumber(values.abort_days),
      });
      if (!rule.expire_days && !rule.expire_date && !rule.abort_incomplete_multipart_days) {
        throw Object.assign(new Error('Give the rule an expiry (days or a date) or a number of days after which unfinished uploads are aborted.'), { details: { field: 'expire_days' } });
      }
      await put([...kept(), rule]);
      said.textContent = `Rule added; ${current.count} rule${current.count === 1 ? '' : 's'} now.`;
      el.reset();
    },
  }) : null;

  return section('lifecycle-title', 'Lifecycle rules', body, said, add ? h('h3', {}, 'Add a rule') : null, add);
}
