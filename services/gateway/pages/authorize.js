// The OAuth consent page's behaviour (authorize.html): an application sent
// the person here from GET /oauth/authorize (`?request=<id>`). Signed in (or
// sent to sign in and back), they read what the application is and asks for
// (GET /v1/oauth/authorize/pending), choose the organisation, the catalogs
// and a level on each (offered up to their own, write only when the
// application asks to write), then allow or deny
// (POST /v1/oauth/authorize/decision); either way the browser goes back to
// the application's redirect address. Every value from the request is
// shown as text, never as markup: the client's name and logo are the
// application's own claims.
import { asPerson, onSubmit, session, show, signInAndReturn } from '/app/app.js';

const params = new URLSearchParams(location.search);
const requestId = params.get('request');
const orgId = params.get('org_id');
const forms = { pickOrg: document.getElementById('pick-org'), decide: document.getElementById('decide') };
const here = (extra) => `/app/authorize?${new URLSearchParams({ request: requestId ?? '', ...extra })}`;

/** The refusals a person can meet here, in words that say what to do next. */
const MESSAGES = {
  oauth_request_expired: 'This request has expired (an application has 15 minutes). Go back to the application and connect again.',
  oauth_request_decided: 'This request has been answered already. Go back to the application; connect again there if you need to.',
  oauth_request_not_found: 'There is no such request. Go back to the application and connect again.',
  session_required: 'Allowing an application needs you signed in with your password. Sign out and sign in again.',
  forbidden: 'Only a person signed in to Floe can allow an application.',
};
const readable = (err) => MESSAGES[err.code] ?? err.message;

/** A refusal that ends the page: the forms go, the message stays. */
function problem(err) {
  for (const f of Object.values(forms)) f.hidden = true;
  show('problem', readable(err));
}

function showForm(form, message = '') {
  for (const f of Object.values(forms)) f.hidden = f !== form;
  form.querySelector('[role="alert"]').textContent = message;
}

/** A failed read: sign in again, choose an organisation, or the refusal in words. */
function notShown(err) {
  if (err.code === 'not_signed_in' || err.status === 401) return signInAndReturn();
  if (err.code === 'org_required' && err.details?.available?.length) {
    forms.pickOrg.querySelector('select').replaceChildren(...err.details.available.map((o) => new Option(o.name, o.org_id)));
    return showForm(forms.pickOrg);
  }
  problem(err);
}

/** The application as it describes itself: name, logo (https only), host, and where it will send the person back. */
function renderClient(p) {
  const c = p.client;
  document.getElementById('client-name').textContent = c.client_name ?? c.host ?? c.client_id;
  document.getElementById('client-host').textContent = c.host ? `from ${c.host}` : '';
  const logo = document.getElementById('client-logo');
  let https = false;
  try { https = Boolean(c.logo_uri) && new URL(c.logo_uri).protocol === 'https:'; } catch { https = false; }
  if (https) {
    logo.src = c.logo_uri;
    logo.addEventListener('error', () => { logo.hidden = true; });
    logo.hidden = false;
  }
  document.getElementById('redirect-host').textContent = `After you answer, you go back to ${p.redirect_host}.`;
  document.getElementById('client').hidden = false;
}

function renderOrganization(p) {
  const choice = document.getElementById('org-choice');
  if (p.organizations.length > 1) {
    const select = document.getElementById('org_id');
    select.replaceChildren(...p.organizations.map((o) => new Option(o.name, o.org_id)));
    select.value = p.organization.org_id;
    select.addEventListener('change', () => location.assign(here({ org_id: select.value })));
    choice.hidden = false;
  }
  document.getElementById('org-name').textContent = `It works in ${p.organization.name} (${p.organization.handle}) as you, ${p.person.email ?? 'the signed-in person'}.`;
}

function renderExisting(p) {
  const note = document.getElementById('existing');
  if (!p.existing) return;
  const holds = p.existing.grants.map((g) => `${g.level} on ${g.name}`).join(', ') || 'no catalogs';
  note.textContent = `You allowed this application before: its token “${p.existing.name}” holds ${holds}. Allowing replaces those grants with the ones you choose here.`;
  note.hidden = false;
  document.getElementById('granted-head').hidden = false;
}

function catalogRow(w, i, canWrite, existing) {
  const row = document.createElement('tr');
  row.dataset.warehouse = w.warehouse_id;
  const pick = document.createElement('td');
  // Ticked: the organisation's default catalog, and what the existing token holds (allowing replaces its grants).
  const box = Object.assign(document.createElement('input'), { type: 'checkbox', id: `catalog-${i}`, checked: w.default || w.granted !== null });
  const label = Object.assign(document.createElement('label'), { htmlFor: box.id, textContent: w.name, className: 'inline' });
  pick.append(box, label);
  const level = document.createElement('td');
  const select = document.createElement('select');
  select.setAttribute('aria-label', `Level on ${w.name}`);
  for (const l of w.my_level === 'write' && canWrite ? ['read', 'write'] : ['read']) select.append(new Option(l, l));
  // The level it holds now where it holds one (allowing again keeps it unless changed), else the one offered.
  const wanted = w.granted ?? w.level;
  select.value = wanted === 'write' && select.options.length === 2 ? 'write' : 'read';
  level.append(select);
  row.append(pick, level);
  if (existing) {
    const held = document.createElement('td');
    held.textContent = w.granted ?? '—';
    row.append(held);
  }
  return row;
}

function render(p) {
  renderClient(p);
  document.getElementById('scopes').replaceChildren(...p.scopes.map((s) => Object.assign(document.createElement('li'), { textContent: p.scope_descriptions[s] ?? s })));
  renderOrganization(p);
  renderExisting(p);
  const canWrite = p.scopes.includes('catalogs:write');
  document.getElementById('catalogs').replaceChildren(...p.warehouses.map((w, i) => catalogRow(w, i, canWrite, Boolean(p.existing))));
  document.getElementById('expires').textContent = `This request expires in ${Math.max(1, Math.ceil(p.expires_in / 60))} minutes.`;
  showForm(forms.decide);

  const decide = (body) => asPerson('POST', '/v1/oauth/authorize/decision', { request_id: p.request_id, ...body });
  const leave = (answer) => {
    show('outcome', answer.allowed ? `Allowed. Taking you back to ${p.redirect_host}…` : `Denied. Taking you back to ${p.redirect_host}…`);
    location.assign(answer.redirect_to);
  };
  onSubmit(forms.decide, async () => {
    const chosen = [...document.getElementById('catalogs').rows].filter((r) => r.querySelector('input').checked);
    if (!chosen.length) throw new Error('Choose at least one catalog, or deny.');
    const grants = chosen.map((r) => ({ warehouse_id: r.dataset.warehouse, level: r.querySelector('select').value }));
    try {
      leave(await decide({ allow: true, org_id: p.organization.org_id, grants }));
    } catch (err) {
      throw Object.assign(new Error(readable(err)), { details: err.details });
    }
  });
  const deny = document.getElementById('deny');
  deny.addEventListener('click', async () => {
    forms.decide.querySelector('[role="alert"]').textContent = '';
    deny.disabled = true;
    try {
      leave(await decide({ allow: false }));
    } catch (err) {
      forms.decide.querySelector('[role="alert"]').textContent = readable(err);
    } finally {
      deny.disabled = false;
    }
  });
}

onSubmit(forms.pickOrg, async (f) => location.assign(here({ org_id: f.org_id })));

if (!session.get()) signInAndReturn();
else if (!requestId) problem({ message: 'This address names no request. Go back to the application and connect again.' });
else {
  asPerson('GET', `/v1/oauth/authorize/pending?${new URLSearchParams({ request_id: requestId, ...(orgId ? { org_id: orgId } : {}) })}`)
    .then(render, notShown);
}
