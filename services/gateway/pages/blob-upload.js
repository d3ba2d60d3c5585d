// Uploading on the blobs page (blobs.html): the folder to upload into, the drop
// zone and file input, each file's progress, and the upload itself. Its own
// file because it is the one part of the page that talks to the API without
// `call`: an XMLHttpRequest, for upload progress.
//
// Uploads go through Floe (POST …/blobs/upload), so at most the API's body
// limit per file. The command line sends larger files straight to the store
// with a short-lived uploader; a page cannot: the pages' policy lets them
// connect to this origin only, and the blob buckets carry no CORS rule that
// would admit a browser's PUT. The page says so and names the command.
import { session } from '/app/app.js';
import {
  bytes, call, explain, field, h, section,
} from '/app/console.js';
import { at, query } from '/app/blob-api.js';

/** The API's body limit (the gateway's `bodyLimitBytes`; packages/cli's API_UPLOAD_LIMIT). */
const API_UPLOAD_LIMIT = 1_000_000;
const API_UPLOAD_LIMIT_TEXT = '1 MB (1,000,000 bytes)';

/** A refusal from an XMLHttpRequest, shaped like app.js's `api` errors. */
function refusal(xhr) {
  let answer = {};
  try { answer = JSON.parse(xhr.responseText); } catch { /* not JSON: the status says it */ }
  const e = answer.error ?? {};
  return Object.assign(new Error(e.message ?? `the service answered ${xhr.status}`), { code: e.code, status: xhr.status, details: e });
}

/** POST …/blobs/upload with the file as the body. XMLHttpRequest, because fetch reports no upload progress. */
function send(w, key, file, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', at(w, `/blobs/upload${query({ key })}`));
    xhr.setRequestHeader('Authorization', `Bearer ${session.get()?.access_token ?? ''}`);
    xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    xhr.upload.onprogress = (e) => { if (e.lengthComputable && e.total) onProgress(e.loaded / e.total); };
    xhr.onload = () => (xhr.status >= 200 && xhr.status < 300 ? resolve(JSON.parse(xhr.responseText)) : reject(refusal(xhr)));
    xhr.onerror = () => reject(new Error('The connection was cut during the upload; try again.'));
    xhr.send(file);
  });
}

/** An upload, once more after a refresh of the sign-in when the access token had run out. */
async function upload(w, key, file, onProgress) {
  try {
    return await send(w, key, file, onProgress);
  } catch (err) {
    if (err.status !== 401 || err.code === 'reauth_required') throw err;
    await call('GET', at(w)); // refreshes the stored session (or sends the person to sign in)
    return send(w, key, file, onProgress);
  }
}

/** A word as a shell takes it: quoted when it holds anything beyond plain path characters. */
const shellWord = (text) => (/^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

/** A folder as a key prefix: no leading slash, one trailing slash, empty for the top. */
function asFolder(text) {
  const t = text.trim().replace(/^\/+/, '');
  return t && !t.endsWith('/') ? `${t}/` : t;
}

export function uploader(catalog, prefix, onStored) {
  const w = catalog.warehouse_id;
  const folder = field('folder', 'Upload into folder', { value: prefix, required: false, hint: 'Files go into this folder (a key prefix such as reports/2026/); empty: the top of the bucket.' });
  const uploads = h('ul', { class: 'uploads', 'aria-label': 'Uploads' });

  async function one(file) {
    const key = `${asFolder(folder.querySelector('input').value)}${file.name}`;
    const bar = h('progress', { max: 100, value: 0, 'aria-label': `Upload of ${file.name}` });
    const pct = h('span', {}, '0 %');
    const outcome = h('p', { role: 'status' });
    uploads.prepend(h('li', { dataset: { key } }, h('strong', {}, key), ` (${bytes(file.size)})`, h('div', { class: 'upload-bar' }, bar, pct), outcome));
    const show = (fraction) => { bar.value = Math.round(fraction * 100); pct.textContent = `${bar.value} %`; };
    if (file.size > API_UPLOAD_LIMIT) {
      outcome.replaceChildren(h('span', { class: 'inline-alert' }, `Not uploaded: over the ${API_UPLOAD_LIMIT_TEXT} a page can send. Use the command line: `),
        h('code', {}, `floe blobs put ${catalog.name} ${shellWord(file.name)} ${shellWord(key)}`));
      return;
    }
    try {
      const stored = await upload(w, key, file, show);
      show(1);
      outcome.textContent = `Stored as ${stored.key} (${bytes(stored.size)}).`;
    } catch (err) {
      outcome.replaceChildren(h('span', { class: 'inline-alert' }, `Not uploaded: ${explain(err)}`));
    }
  }

  async function all(files) {
    for (const file of [...files]) await one(file);
    await onStored();
  }

  const input = h('input', { id: 'upload-files', type: 'file', multiple: true, onchange: async () => { await all(input.files); input.value = ''; } });
  const zone = h('div', { class: 'dropzone' }, h('p', {}, 'Drop files here to upload them.'), h('label', { for: 'upload-files' }, 'Or choose files'), input);
  zone.addEventListener('dragenter', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', (e) => { if (!zone.contains(e.relatedTarget)) zone.classList.remove('over'); });
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    if (e.dataTransfer?.files.length) all(e.dataTransfer.files);
  });
  return section('upload-title', 'Upload',
    h('p', { class: 'hint' }, `Up to ${API_UPLOAD_LIMIT_TEXT} per file through this page. A larger file goes straight to storage, which a page cannot reach: upload it with `,
      h('code', {}, `floe blobs put ${catalog.name} <file> [key]`), ' (the command line makes a one-hour uploader for it and revokes it afterwards).'),
    folder, zone, uploads);
}
