// The console's frame, shared by every signed-in page (home, catalog, table,
// sinks, blobs, usage, organisation, audit, account): the header with the
// areas and the organisation in view, a builder for elements, the API called
// as the signed-in person (a stale sign-in asks for the password again, in a
// dialog, and the call is retried), refusals in words with their remedy, and
// loading and empty states. Plain modules served as written: nothing to build,
// and the pages' strict policy (scripts from this origin only) holds.
import { api, asPerson, leaveForProvider, onSubmit, session, signInAndReturn as signIn } from '/app/app.js';
import { passkeysSupported, proofOf, signWithPasskey } from '/app/authenticator.js';

/** The query parameters of this page. */
export const params = new URLSearchParams(location.search);

/**
 * An element: `h('a', { href }, 'text', child, …)`. Attributes starting with
 * `on` are listeners; `null`, `false` and `undefined` children are skipped;
 * text is always set as text, never parsed as HTML.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2).toLowerCase(), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k in el && typeof v !== 'string') el[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  el.append(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false).map((c) => (c instanceof Node ? c : String(c))));
  return el;
}

/** The wait a refusal asks for (the envelope's `retry_after_seconds`), in words. */
const retryWords = (err) => (typeof err.details?.retry_after_seconds === 'number' ? `Try again in ${plural(err.details.retry_after_seconds, 'second')}.` : 'Try again in a moment.');

/** The words under a refusal, by the envelope's code: what the person can do about it (words, or words made from the refusal). */
const REMEDIES = {
  insufficient_role: 'Only an admin of the organisation can do this; ask one.',
  forbidden: 'Your access does not allow this; an admin can grant it.',
  rate_limited: 'Wait a little and try again.',
  quota_exceeded: 'The organisation is at its limit; free some room or ask the operator for more.',
  already_exists: 'Choose another name.',
  handle_taken: 'Choose another handle.',
  last_admin: 'Make someone else an admin first.',
  warehouse_not_found: 'The catalog is gone or not yours; go back to Home.',
  table_not_found: 'The table is gone; go back to its catalog.',
  sink_not_found: 'The sink is gone; go back to its catalog.',
  org_not_found: 'This organisation is not one of yours; go back to Home.',
  restore_expired: 'The grace period is over; the catalog cannot come back.',
  name_mismatch: 'Type the catalog’s name exactly as shown.',
  service_unavailable: 'Floe is busy or restarting; try again in a moment.',
  mfa_code_required: 'Enter the code your authenticator app shows, or a backup code.',
  invalid_mfa_code: 'Use the code the app shows now (each works once), or an unused backup code.',
  mfa_required_by_policy: 'Your organisation requires it; an admin can change the policy.',
  passkey_limit: 'Delete a passkey you no longer use first.',
  origin_not_allowed: 'Open Floe at the address its passkeys belong to and try there.',
  busy: retryWords,
};

/** A refusal as one sentence for the person: the API's message, then what to do. */
export function explain(err) {
  const known = REMEDIES[err.code];
  const remedy = (typeof known === 'function' ? known(err) : known) ?? (err.status >= 500 ? 'Something failed on Floe’s side; try again, and quote the request id if it keeps failing.' : '');
  const id = err.details?.request_id ? ` (request ${err.details.request_id})` : '';
  return `${err.message}${remedy ? ` ${remedy}` : ''}${id}`;
}

/**
 * The buttons that confirm with a sign-in provider the person's account is
 * linked to: each leaves for the provider, which sends the browser back
 * through the login page to this page (the change is then made again).
 */
async function providerConfirmations() {
  const [{ identities }, config] = await Promise.all([asPerson('GET', '/v1/auth/identities'), api('GET', '/v1/auth/config')]);
  const linked = (config.sign_in_providers ?? []).filter((p) => identities.some((i) => i.provider === p.id));
  return linked.map((p) => h('button', { type: 'button', class: 'secondary', onclick: async () => {
    leaveForProvider(await asPerson('POST', `/v1/auth/reauth/oidc/${p.id}`), { provider: p.id, purpose: 'reauth', return_to: location.pathname + location.search });
  } }, `Confirm with ${p.name}`));
}

/**
 * Asks for the password again in a modal dialog (and, for an account with a
 * second factor, a code) and reauthenticates this session (POST
 * /v1/auth/reauth), or offers the sign-in providers the account is linked
 * to; resolves once it has, rejects when the person cancels.
 */
function reauthenticate() {
  const email = session.get()?.email;
  return new Promise((resolve, reject) => {
    const alert = h('p', { role: 'alert', 'aria-live': 'assertive' });
    const password = h('input', { id: 'reauth-password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
    const code = h('input', { id: 'reauth-code', name: 'code', autocomplete: 'one-time-code', spellcheck: 'false' });
    const codeField = h('div', { hidden: true }, h('label', { for: 'reauth-code' }, 'Code from your authenticator app, or a backup code'), code);
    const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => { dialog.close(); reject(Object.assign(new Error('You cancelled the password check; nothing was changed.'), { code: 'reauth_cancelled' })); } }, 'Cancel');
    const done = () => { dialog.close(); dialog.remove(); resolve(); };
    // A passkey confirms it alone (the API refuses one made elsewhere, in words).
    const passkey = passkeysSupported()
      ? h('button', { type: 'button', class: 'secondary', onclick: async () => {
        alert.textContent = '';
        try {
          const signed = await signWithPasskey(await asPerson('POST', '/v1/auth/reauth/passkey-options'));
          await asPerson('POST', '/v1/auth/reauth', { passkey: signed });
          done();
        } catch (err) {
          alert.textContent = err.code ? explain(err) : `The passkey did not answer: ${err.message}`;
        }
      } }, 'Use a passkey instead')
      : null;
    const providers = h('div', { class: 'actions' });
    const form = h('form', { method: 'dialog' },
      h('h2', { id: 'reauth-title' }, 'Confirm it is you'),
      h('p', {}, `This change needs your password typed in the last 10 minutes${email ? ` (${email})` : ''}.`),
      h('label', { for: 'reauth-password' }, 'Password'), password, codeField,
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Confirm'), passkey, cancel), providers, alert);
    providerConfirmations().then((buttons) => providers.append(...buttons), () => undefined);
    const dialog = h('dialog', { 'aria-labelledby': 'reauth-title' }, form);
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        await asPerson('POST', '/v1/auth/reauth', { password: password.value, ...(code.value.trim() ? proofOf(code.value) : {}) });
        done();
      } catch (err) {
        if (err.code === 'mfa_code_required') {
          codeField.hidden = false;
          code.focus();
        }
        alert.textContent = explain(err);
      }
    });
    document.body.append(dialog);
    dialog.showModal();
    password.focus();
  });
}

/**
 * The API as the signed-in person. Without a session the person is sent to
 * sign in and back; `reauth_required` asks for the password and retries once.
 */
export async function call(method, path, body) {
  try {
    return await asPerson(method, path, body);
  } catch (err) {
    if (err.code === 'not_signed_in' || (err.status === 401 && err.code !== 'reauth_required')) {
      session.clear();
      signIn();
      return new Promise(() => undefined);
    }
    if (err.code !== 'reauth_required') throw err;
    await reauthenticate();
    return asPerson(method, path, body);
  }
}

/** The areas of the console, in the header's order. */
const AREAS = [
  ['home', 'Home', '/app/home'],
  ['usage', 'Usage', '/app/usage'],
  ['org', 'Organisation', '/app/org'],
  ['audit', 'Audit', '/app/audit'],
  ['account', 'Account', '/app/account'],
];

const ORG_KEY = 'floe.org';

/** The organisation in view: `?org=` when given, else the last one chosen, else the first. */
export function orgInView(orgs) {
  const asked = params.get('org') ?? localStorage.getItem(ORG_KEY);
  const org = orgs.find((o) => o.org_id === asked || o.handle === asked) ?? orgs[0] ?? null;
  if (org) localStorage.setItem(ORG_KEY, org.org_id);
  return org;
}

/** This page's address with some query parameters changed. */
export function here(changes) {
  const next = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(changes)) (v === null || v === undefined || v === '' ? next.delete(k) : next.set(k, v));
  return `${location.pathname}?${next}`;
}

/**
 * Draws the frame and runs the page. `render(ctx)` fills `ctx.main` and may
 * be called again (`ctx.refresh()`); it gets the person's organisations and
 * the one in view. A refusal it throws is shown in words, never a blank page.
 */
export async function consolePage({ area, title, render, needsOrg = true }) {
  if (!session.get()) return signIn();
  document.title = `${title} — Floe`;
  const main = h('main', { id: 'main' });
  const status = h('p', { role: 'status', 'aria-live': 'polite', class: 'loading' }, 'Loading…');
  const orgSlot = h('div', { class: 'org-pick' });
  const nav = h('nav', { 'aria-label': 'Console' },
    h('a', { href: '/app/home', class: 'brand' }, 'Floe'),
    h('ul', {}, AREAS.map(([key, label, href]) => h('li', {}, h('a', { href, 'aria-current': key === area ? 'page' : null }, label)))),
    orgSlot,
    h('button', { type: 'button', class: 'secondary', onclick: signOut }, 'Sign out'));
  document.body.replaceChildren(h('a', { href: '#main', class: 'skip' }, 'Skip to content'), h('header', {}, nav), main);
  main.append(h('h1', {}, title), status);
  const ctx = { main, orgs: [], org: null, refresh: () => run() };
  async function run() {
    try {
      ctx.orgs = (await call('GET', '/v1/orgs')).organizations;
      ctx.org = orgInView(ctx.orgs);
      drawOrgPicker(orgSlot, ctx);
      if (needsOrg && !ctx.org) {
        main.replaceChildren(h('h1', {}, title), empty('You are not in an organisation yet. Accept an invitation from your mail, or create one with the API (POST /v1/onboard).'));
        return;
      }
      ctx.body = h('div', { class: 'page-body' });
      ctx.heading = undefined;
      await render(ctx);
      main.replaceChildren(h('h1', {}, ctx.heading ?? title), ctx.body);
    } catch (err) {
      main.replaceChildren(h('h1', {}, title), failure(err));
    }
  }
  await run();
  return ctx;
}

function drawOrgPicker(slot, ctx) {
  if (ctx.orgs.length < 2) {
    slot.replaceChildren(ctx.org ? h('span', { class: 'org-name' }, ctx.org.name) : '');
    return;
  }
  const select = h('select', { id: 'org-pick', 'aria-label': 'Organisation in view', onchange: () => location.assign(here({ org: select.value, catalog: null, table: null, sink: null })) },
    ctx.orgs.map((o) => h('option', { value: o.org_id, selected: o.org_id === ctx.org?.org_id }, o.name)));
  slot.replaceChildren(select);
}

async function signOut() {
  const s = session.get();
  if (s) await asPerson('POST', '/v1/auth/logout', { refresh_token: s.refresh_token }).catch(() => undefined);
  session.clear();
  location.assign('/app/login');
}

/** A refusal shown where the content would be: words, remedy, request id. A not-found says only that. */
export function failure(err) {
  return h('div', { role: 'alert', class: 'failure', dataset: { code: err.code ?? '' } },
    h('p', {}, err.status === 404 ? 'Not found. It does not exist, or it is not yours to see.' : explain(err)),
    err.status === 404 ? h('p', {}, h('a', { href: '/app/home' }, 'Back to Home')) : null);
}

/** `n one` or `n ones`: a count in words. */
export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A quiet sentence where a list has nothing yet. */
export const empty = (text) => h('p', { class: 'empty' }, text);

/**
 * A button running `action`; while it runs it is disabled, and a refusal is
 * shown in `alertEl` (or a new alert after the button).
 */
export function actionButton(label, action, { secondary = false, danger = false, alertEl, ariaLabel } = {}) {
  const alertHere = alertEl ?? h('span', { role: 'alert', class: 'inline-alert' });
  const button = h('button', { type: 'button', class: [secondary ? 'secondary' : '', danger ? 'danger' : ''].join(' ').trim() || null, 'aria-label': ariaLabel ?? null, onclick: async () => {
    button.disabled = true;
    alertHere.textContent = '';
    try {
      await action();
    } catch (err) {
      alertHere.textContent = explain(err);
    } finally {
      button.disabled = false;
    }
  } }, label);
  return alertEl ? button : h('span', { class: 'action' }, button, alertHere);
}

/**
 * A form built from fields; `onsubmit(values)` runs with the button disabled,
 * and a refusal is shown in the form's alert, focusing the field it names.
 */
export function form({ id, fields, submit, onsubmit, hint }) {
  const alert = h('p', { role: 'alert', 'aria-live': 'assertive' });
  const el = h('form', { id, novalidate: true },
    hint ? h('p', { class: 'hint' }, hint) : null,
    fields,
    h('button', { type: 'submit' }, submit), alert);
  onSubmit(el, onsubmit, { describe: explain, alert });
  return el;
}

/** A labelled input (or select when `options` are given) for `form`. */
export function field(name, label, { type = 'text', value, options, required = true, hint, autocomplete = 'off', placeholder } = {}) {
  const id = `f-${name}`;
  const hintId = hint ? `${id}-hint` : null;
  const input = options
    ? h('select', { id, name, 'aria-describedby': hintId }, options.map((o) => (Array.isArray(o) ? h('option', { value: o[0], selected: o[0] === value }, o[1]) : h('option', { value: o, selected: o === value }, o))))
    : type === 'textarea'
      ? h('textarea', { id, name, required, 'aria-describedby': hintId, rows: 6, spellcheck: 'false' }, value ?? '')
      : h('input', { id, name, type, value: value ?? null, required, autocomplete, placeholder: placeholder ?? null, 'aria-describedby': hintId, spellcheck: 'false' });
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hint ? h('p', { id: hintId, class: 'hint' }, hint) : null);
}

/**
 * A table with a caption-like title: `columns` are header labels, `rows` arrays of cells (text or elements).
 * Its wrapper scrolls sideways on a narrow screen, so it is a focusable region a keyboard can scroll.
 */
export function table(titleId, columns, rows, { rowData } = {}) {
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-labelledby': titleId }, h('table', { 'aria-labelledby': titleId },
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map((cells, i) => h('tr', { dataset: rowData?.[i] ?? null }, cells.map((c) => h('td', {}, c)))))));
}

/** Facts as a description list: `[label, value]` pairs, falsy pairs skipped. */
export const facts = (pairs) => h('dl', { class: 'facts' }, pairs.filter(Boolean).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));

/** A section with a heading; the heading's id labels what is in it. */
export function section(id, heading, ...content) {
  return h('section', { 'aria-labelledby': id }, h('h2', { id }, heading), ...content);
}

/** A value to copy, with a button that copies it; `secret` ones are marked as shown once. */
export function copyable(value, label, { secret = false } = {}) {
  const said = h('span', { role: 'status', class: 'copied' });
  const code = h('code', { class: secret ? 'secret' : null }, value);
  return h('div', { class: 'copyable' },
    // Focusable: a recipe wider than a phone scrolls sideways, and a keyboard must reach that too.
    value.includes('\n') ? h('pre', { tabindex: '0' }, code) : code,
    h('button', { type: 'button', class: 'secondary', 'aria-label': `Copy ${label}`, onclick: async () => {
      try {
        await navigator.clipboard.writeText(value);
        said.textContent = 'Copied.';
      } catch {
        said.textContent = 'Select the text and copy it.';
      }
    } }, 'Copy'), said);
}

/** A secret the API shows once: copyable, with the warning. */
export function shownOnce(value, label) {
  return h('div', { class: 'once' }, h('p', { class: 'warn' }, `Copy the ${label} now: Floe shows it only this once.`), copyable(value, label, { secret: true }));
}

/** Bytes in the units a person reads. */
export function bytes(n) {
  if (n === null || n === undefined) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let v = Number(n);
  let i = 0;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i += 1; }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** A time as this browser's locale writes it, with the ISO form in a <time>. */
export function when(iso) {
  if (!iso) return '—';
  return h('time', { datetime: iso, title: iso }, new Date(iso).toLocaleString());
}

/** How long ago, in words ("5 min ago"). */
export function ago(iso) {
  if (!iso) return 'never';
  const s = Math.round((Date.now() - new Date(iso).getTime()) / 1000);
  if (s < 60) return `${Math.max(s, 0)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} days ago`;
}

/**
 * A question in a modal dialog; `action` runs on the person's yes and a
 * refusal stays in the dialog. With `expected` (a catalog's or sink's name)
 * the yes stays disabled until the person has typed it. Resolves whether it ran.
 */
export function confirmDialog({ title, text, button, action, expected }) {
  return new Promise((resolve) => {
    const alert = h('p', { role: 'alert', 'aria-live': 'assertive' });
    const yes = h('button', { type: 'submit', class: 'danger', disabled: expected !== undefined }, button);
    const input = expected === undefined ? null : h('input', { id: 'confirm-typed', name: 'typed', autocomplete: 'off', spellcheck: 'false', required: true });
    input?.addEventListener('input', () => { yes.disabled = input.value !== expected; });
    const close = (answer) => { dialog.close(); dialog.remove(); resolve(answer); };
    const body = h('form', { method: 'dialog' },
      h('h2', { id: 'confirm-title' }, title), h('p', {}, text),
      input ? [h('label', { for: 'confirm-typed' }, `Type ${expected} to confirm`), input] : null,
      h('div', { class: 'actions' }, yes, h('button', { type: 'button', class: 'secondary', onclick: () => close(false) }, 'Cancel')), alert);
    const dialog = h('dialog', { 'aria-labelledby': 'confirm-title' }, body);
    body.addEventListener('submit', async (event) => {
      event.preventDefault();
      yes.disabled = true;
      try {
        await action(input?.value);
        close(true);
      } catch (err) {
        alert.textContent = explain(err);
        yes.disabled = false;
      }
    });
    dialog.addEventListener('cancel', () => { dialog.remove(); resolve(false); });
    document.body.append(dialog);
    dialog.showModal();
    (input ?? yes).focus();
  });
}

/** A confirmation where the person types `expected` (a catalog's name) before `action` runs. */
export const confirmTyped = ({ title, text, expected, button, action }) => confirmDialog({ title, text, expected, button, action });

/** The catalogs this person reaches in `org`: GET /v1/warehouses narrowed by the organisation's projects. */
export async function catalogsOf(org, { includeDeleted = false } = {}) {
  const [{ projects }, { warehouses }] = await Promise.all([
    call('GET', '/v1/projects'),
    call('GET', `/v1/warehouses${includeDeleted ? '?include_deleted=true' : ''}`),
  ]);
  const ours = new Set(projects.filter((p) => p.org_id === org.org_id).map((p) => p.project_id));
  return warehouses.filter((w) => ours.has(w.project_id));
}

/** One catalog by id (`?catalog=`), with the organisation it belongs to; a 404 when it is not the person's. */
export async function catalogInView(ctx) {
  const id = params.get('catalog');
  if (!id) throw Object.assign(new Error('No catalog named in the address.'), { status: 404, code: 'warehouse_not_found' });
  const [catalog, { projects }] = await Promise.all([call('GET', `/v1/warehouses/${encodeURIComponent(id)}`), call('GET', '/v1/projects')]);
  const orgId = projects.find((p) => p.project_id === catalog.project_id)?.org_id;
  const org = ctx.orgs.find((o) => o.org_id === orgId) ?? ctx.org;
  return { catalog, org, isAdmin: org?.role === 'admin', canWrite: catalog.my_level === 'write' };
}

/** The sub-pages of a catalog, as tabs under its heading. */
export function catalogTabs(catalog, current) {
  const q = `?catalog=${encodeURIComponent(catalog.warehouse_id)}`;
  const tabs = [['catalog', 'Overview', `/app/catalog${q}`], ['sinks', 'Sinks', `/app/sinks${q}`], ['blobs', 'Blobs', `/app/blobs${q}`]];
  return h('nav', { 'aria-label': `Catalog ${catalog.name}`, class: 'tabs' },
    h('a', { href: '/app/home' }, '← Home'),
    tabs.map(([key, label, href]) => h('a', { href, 'aria-current': key === current ? 'page' : null }, label)));
}

/**
 * A catalog's credential pair with copy buttons. Not "shown once": the
 * connection recipe (GET /v1/connection) hands out the current pair to
 * whoever may connect, so the page says where to find it again.
 */
export function credentialPair(r) {
  return [
    facts([['Read/write client id', h('code', {}, r.catalog_credential.client_id)]]),
    copyable(r.catalog_credential.client_secret, 'read/write client secret', { secret: true }),
    facts([['Read-only client id', h('code', {}, r.catalog_credential_ro.client_id)]]),
    copyable(r.catalog_credential_ro.client_secret, 'read-only client secret', { secret: true }),
    h('p', { class: 'hint' }, 'The connection recipes on the catalog\'s page always hold the current pair.'),
  ];
}
