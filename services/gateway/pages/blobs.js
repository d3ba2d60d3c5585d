// Blobs (blobs.html?catalog=<warehouse_id>[&prefix=<folder/>]): the files in
// a catalog's blob bucket, the bucket beside its tables for anything that is
// not a table. Browse by folder, download through a short-lived presigned
// link, and — at write level — upload, delete, make and revoke uploaders
// (write-only storage keys for devices) and set the bucket's lifecycle rules.
//
// This is the page entry, with the file browser. Uploading is blob-upload.js,
// uploaders blob-uploaders.js, lifecycle rules blob-lifecycle.js; the routes'
// addresses they all use are blob-api.js.
import {
  actionButton, bytes, call, catalogInView, catalogTabs, confirmDialog, consolePage, copyable, empty, h, here, params, section, table, when,
} from '/app/console.js';
import { at, fill, query } from '/app/blob-api.js';
import { lifecycle } from '/app/blob-lifecycle.js';
import { uploader } from '/app/blob-upload.js';
import { uploaders } from '/app/blob-uploaders.js';

/** How long a copied link works: the longest Floe signs. */
const LINK_SECONDS = 3600;
/** A download link is used at once; a short life is enough. */
const DOWNLOAD_SECONDS = 300;
/** Floe's sink batches: listed, never written or deleted through the API. */
const SINK_PREFIX = '_sink/';

/** The folder path as links: the top of the bucket, then each folder of the prefix. */
function breadcrumbs(prefix) {
  const parts = prefix.split('/').filter(Boolean);
  const crumbs = [h('a', { href: here({ prefix: null }), 'aria-current': prefix ? null : 'location' }, 'All files')];
  parts.forEach((part, i) => {
    const folder = `${parts.slice(0, i + 1).join('/')}/`;
    crumbs.push(' / ', h('a', { href: here({ prefix: folder }), 'aria-current': folder === prefix ? 'location' : null }, part));
  });
  return h('nav', { 'aria-label': 'Folder path', class: 'breadcrumbs' }, crumbs);
}

// ---- files: the listing, download links, delete -------------------------------------------

function fileBrowser(catalog, prefix, canWrite) {
  const w = catalog.warehouse_id;
  const listing = h('div');
  const said = h('p', { role: 'status', 'aria-live': 'polite' });
  const linkOut = h('div', { class: 'link-out', 'aria-live': 'polite' });
  const state = { folders: [], objects: [], next: null };

  async function load(token) {
    const page = await call('GET', at(w, `/blobs${query({ prefix, token })}`));
    if (!token) Object.assign(state, { folders: [], objects: [] });
    state.folders.push(...page.folders);
    state.objects.push(...page.objects);
    state.next = page.next_token;
    draw();
  }

  async function download(o) {
    const signed = await call('GET', at(w, `/blobs/presign${query({ key: o.key, expires: DOWNLOAD_SECONDS, download: 1 })}`));
    // The answer names the file as an attachment: a new tab saves it and closes, and this page stays.
    const link = h('a', { href: signed.url, target: '_blank', rel: 'noopener noreferrer', download: o.name, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
  }

  async function showLink(o) {
    const signed = await call('GET', at(w, `/blobs/presign${query({ key: o.key, expires: LINK_SECONDS })}`));
    const minutes = Math.round(signed.expires_in / 60);
    // A browser may never settle a clipboard write it will not allow: a second is long enough to tell.
    const copied = await Promise.race([
      navigator.clipboard?.writeText(signed.url).then(() => true, () => false) ?? false,
      new Promise((resolve) => setTimeout(() => resolve(false), 1000)),
    ]);
    linkOut.replaceChildren(
      h('h3', {}, `Link to ${signed.key}`),
      copyable(signed.url, `link to ${o.name}`),
      h('p', { class: 'hint' }, 'Anyone holding this link can download the file for ', minutes >= 60 ? `${minutes / 60} hour${minutes === 60 ? '' : 's'}` : `${minutes} minutes`,
        ', until ', when(signed.expires_at), '. ', copied ? 'It is on your clipboard.' : 'Copy it with the button.'));
  }

  function remove(o) {
    return confirmDialog({
      title: `Delete ${o.name}?`,
      text: `${o.key} is deleted from the blob bucket for good; there is no undo.`,
      button: 'Delete',
      action: async () => {
        const gone = await call('DELETE', at(w, `/blobs${query({ key: o.key })}`));
        said.textContent = gone.count ? `Deleted ${o.key}.` : `Nothing was at ${o.key}; nothing was deleted.`;
        await load();
      },
    });
  }

  function fileActions(o) {
    const alert = h('span', { role: 'alert', class: 'inline-alert' });
    return h('div', { class: 'row-actions' },
      actionButton('Download', () => download(o), { secondary: true, alertEl: alert, ariaLabel: `Download ${o.name}` }),
      actionButton('Copy link', () => showLink(o), { secondary: true, alertEl: alert, ariaLabel: `Copy link to ${o.name}` }),
      canWrite && !o.key.startsWith(SINK_PREFIX)
        ? h('button', { type: 'button', class: 'secondary danger', 'aria-label': `Delete ${o.name}`, onclick: () => remove(o) }, 'Delete')
        : null,
      alert);
  }

  function draw() {
    if (!state.folders.length && !state.objects.length) {
      listing.replaceChildren(empty(prefix ? `No files under ${prefix}.` : 'No files here yet.'));
      return;
    }
    const rows = [
      ...state.folders.map((f) => [h('a', { href: here({ prefix: f.prefix }) }, `${f.name}/`), '—', '—',
        f.prefix === SINK_PREFIX ? h('span', { class: 'hint' }, 'Floe’s sink batches (read only)') : '']),
      ...state.objects.map((o) => [o.name, bytes(o.size), when(o.last_modified), fileActions(o)]),
    ];
    const rowData = [...state.folders.map((f) => ({ folder: f.prefix })), ...state.objects.map((o) => ({ key: o.key, size: String(o.size) }))];
    fill(listing,
      table('files-title', ['Name', 'Size', 'Modified', 'Actions'], rows, { rowData }),
      state.next ? actionButton('Show more', () => load(state.next), { secondary: true }) : null);
  }

  const el = section('files-title', prefix ? `Files in ${prefix}` : 'Files', breadcrumbs(prefix), listing, said, linkOut);
  return { el, load, said };
}

// ---- the page ----------------------------------------------------------------------------

await consolePage({
  area: 'home',
  title: 'Blobs',
  render: async (ctx) => {
    const { catalog, canWrite } = await catalogInView(ctx);
    const w = catalog.warehouse_id;
    const prefix = params.get('prefix') ?? '';
    const files = fileBrowser(catalog, prefix, canWrite);
    // Uploaders and rules are their sections' own: a refusal of one is shown there, not over the page.
    const [, uploaderList, rules] = await Promise.all([
      files.load(),
      call('GET', at(w, '/uploaders')).catch((err) => err),
      call('GET', at(w, '/lifecycle')).catch((err) => err),
    ]);
    ctx.heading = `Blobs in ${catalog.name}`;
    fill(ctx.body,
      catalogTabs(catalog, 'blobs'),
      h('p', { class: 'hint' }, `The blob bucket ${catalog.blob_bucket} holds files that are not tables. Your level: ${catalog.my_level}.`,
        canWrite ? '' : ' You can browse and download; uploading, deleting, uploaders and lifecycle rules need write level on this catalog.'),
      files.el,
      canWrite ? uploader(catalog, prefix, () => files.load()) : null,
      uploaders(catalog, uploaderList, canWrite),
      lifecycle(catalog, rules, canWrite));
  },
});
