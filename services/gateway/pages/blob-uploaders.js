// Uploaders on the blobs page (blobs.html): write-only storage keys for devices
// and scripts — the list, making one (its secret shown once, with recipes) and
// revoking one. Its own file because it is a section with its own list, form
// and redraws, apart from the files and the lifecycle rules.
import {
  call, confirmDialog, copyable, empty, failure, field, form, h, section, shownOnce, table, when,
} from '/app/console.js';
import { at } from '/app/blob-api.js';

const LIFETIMES = [['', 'Never'], ['3600', 'In 1 hour'], ['86400', 'In 1 day'], ['604800', 'In 7 days'], ['2592000', 'In 30 days']];

function made(u) {
  return h('div', { class: 'made', dataset: { uploader: u.name } },
    h('h3', {}, `Uploader ${u.name} made`),
    shownOnce(u.secret_access_key, 'secret access key'),
    h('dl', { class: 'facts' },
      h('dt', {}, 'Access key id'), h('dd', {}, copyable(u.access_key_id, 'access key id')),
      h('dt', {}, 'Endpoint'), h('dd', {}, u.endpoint),
      h('dt', {}, 'Bucket'), h('dd', {}, u.bucket),
      h('dt', {}, 'Region'), h('dd', {}, u.region),
      h('dt', {}, 'May write'), h('dd', {}, u.scope),
      h('dt', {}, 'Expires'), h('dd', {}, u.expires_at ? when(u.expires_at) : 'never')),
    h('details', {}, h('summary', {}, 'Upload with the AWS CLI'), copyable(u.recipe.aws_cli, 'AWS CLI commands', { secret: true })),
    h('details', {}, h('summary', {}, 'Upload with Python (boto3)'), copyable(u.recipe.python_boto3, 'Python code', { secret: true })));
}

export function uploaders(catalog, first, canWrite) {
  const w = catalog.warehouse_id;
  const list = h('div');
  const said = h('p', { role: 'status', 'aria-live': 'polite' });
  const fresh = h('div');

  const reload = async () => draw(await call('GET', at(w, '/uploaders')));

  function revoke(u) {
    return confirmDialog({
      title: `Revoke uploader ${u.name}?`,
      text: `Its key stops working now: anything using it can no longer upload to ${u.prefix}.`,
      button: 'Revoke',
      action: async () => {
        const gone = await call('DELETE', at(w, `/uploaders/${encodeURIComponent(u.uploader_id)}`));
        said.textContent = gone.already_revoked ? `${u.name} was already revoked.` : `Revoked ${u.name}.`;
        if (fresh.querySelector(`[data-uploader="${CSS.escape(u.name)}"]`)) fresh.replaceChildren();
        await reload();
      },
    });
  }

  function draw(answer) {
    if (answer instanceof Error) return list.replaceChildren(failure(answer));
    if (!answer.uploaders.length) return list.replaceChildren(empty('No uploaders.'));
    const columns = ['Name', 'May write', 'Lists', 'Access key id', 'Expires', 'Created', ...(canWrite ? ['Actions'] : [])];
    list.replaceChildren(table('uploaders-title', columns, answer.uploaders.map((u) => [
      u.name, u.prefix, u.list ? 'yes' : 'no', h('code', {}, u.access_key_id), u.expires_at ? when(u.expires_at) : 'never', when(u.created_at),
      ...(canWrite ? [h('button', { type: 'button', class: 'secondary danger', 'aria-label': `Revoke uploader ${u.name}`, onclick: () => revoke(u) }, 'Revoke')] : []),
    ]), { rowData: answer.uploaders.map((u) => ({ uploader: u.name })) }));
  }
  draw(first);

  const create = canWrite ? form({
    id: 'uploader-form',
    submit: 'Make uploader',
    fields: [
      field('name', 'Name', { hint: '1–64 letters, digits, “.”, “_” and “-”, e.g. camera-1.' }),
      field('prefix', 'May write under', { required: false, hint: 'A folder such as camera-1/; empty: the name followed by /.' }),
      field('expires', 'Expires', { options: LIFETIMES }),
      h('div', { class: 'field' }, h('input', { id: 'f-list', name: 'list', type: 'checkbox' }), h('label', { for: 'f-list', class: 'inline' }, 'May also list its folder')),
    ],
    onsubmit: async (values, el) => {
      const seconds = Number(values.expires);
      const u = await call('POST', at(w, '/uploaders'), {
        name: values.name.trim(),
        ...(values.prefix.trim() ? { prefix: values.prefix.trim() } : {}),
        list: values.list === 'on',
        expires_at: seconds ? new Date(Date.now() + seconds * 1000).toISOString() : null,
      });
      el.reset();
      said.textContent = '';
      fresh.replaceChildren(made(u));
      await reload();
    },
  }) : null;

  return section('uploaders-title', 'Uploaders',
    h('p', { class: 'hint' }, 'An uploader is a storage key for a device or a script: it can put files under its folder and do nothing else — no reads, no deletes, no tables, no API. Its secret is shown once.'),
    list, said, fresh, create ? h('h3', {}, 'Make an uploader') : null, create);
}
