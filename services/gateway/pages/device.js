// The device approval page's behaviour (device.html): a signed-in person
// reads what a machine asked for (GET /v1/auth/device/pending), unticks
// catalogs or lowers levels (offered up to their own), and approves or
// denies (POST /v1/auth/device/approve). A machine asking for an admin agent
// is told apart, and whether this person's approval makes one (only an
// admin's does). Without a session it signs in first and comes back here.
import { asPerson, onSubmit, session, show, signInAndReturn } from '/app/app.js';

const params = new URLSearchParams(location.search);
const userCode = params.get('user_code');
const orgId = params.get('org_id');
const forms = { lookup: document.getElementById('lookup'), pickOrg: document.getElementById('pick-org'), decide: document.getElementById('decide') };
const here = (extra) => `/app/device?${new URLSearchParams({ user_code: userCode ?? '', ...extra })}`;

/** A form shown with a message in its alert region. */
function showForm(form, message = '') {
  for (const f of Object.values(forms)) f.hidden = f !== form;
  form.querySelector('[role="alert"]').textContent = message;
}

function done(answer) {
  for (const f of Object.values(forms)) f.hidden = true;
  const given = answer.connection?.warehouses.map((w) => `${w.level} on ${w.name}`).join(', ');
  const asAdmin = answer.connection?.role === 'admin' ? ', as an admin agent' : '';
  show('outcome', answer.approved
    ? `Approved: ${answer.client_name} gets ${given}${asAdmin}. Go back to your device to finish; it collects its own key.`
    : `Denied: ${answer.client_name} will not be connected.`);
}

/** A code that is no longer pending: the outcome when this person decided it, else the lookup form with the refusal. */
async function notPending(err) {
  if (err.code === 'device_code_not_found') {
    const s = await asPerson('GET', `/v1/auth/device/status?user_code=${encodeURIComponent(userCode)}`).catch(() => null);
    if (s && s.status !== 'pending') return show('outcome', `This device login is ${s.status}${s.connection ? ` (${s.connection.warehouses.map((w) => `${w.level} on ${w.name}`).join(', ')})` : ''}.`);
  }
  if (err.code === 'org_required' && err.details?.available?.length) {
    const select = forms.pickOrg.querySelector('select');
    select.replaceChildren(...err.details.available.map((o) => new Option(o.name, o.org_id)));
    return showForm(forms.pickOrg);
  }
  forms.lookup.querySelector('input').value = userCode;
  showForm(forms.lookup, err.message);
}

function catalogRow(w, i, requestedLevel) {
  const row = document.createElement('tr');
  row.dataset.warehouse = w.warehouse_id ?? '';
  if (w.pending) row.dataset.pending = 'true';
  const pick = document.createElement('td');
  const box = Object.assign(document.createElement('input'), { type: 'checkbox', id: `catalog-${i}`, checked: w.requested, disabled: w.pending });
  const label = Object.assign(document.createElement('label'), { htmlFor: box.id, textContent: w.pending ? `${w.name} (made when you approve)` : w.name });
  label.className = 'inline';
  pick.append(box, label);
  const level = document.createElement('td');
  const select = document.createElement('select');
  select.setAttribute('aria-label', `Level on ${w.name}`);
  for (const l of w.my_level === 'write' ? ['read', 'write'] : ['read']) select.append(new Option(l, l));
  select.value = w.level ?? (w.my_level === 'write' && requestedLevel === 'write' ? 'write' : 'read');
  level.append(select);
  row.append(pick, level);
  return row;
}

/** What an admin request comes to: `role` is what this person's approval gives. */
const roleNote = (p) => (p.requested_role !== 'admin' ? ''
  : p.role === 'admin' ? ' It asks to be an admin agent: approving makes it one.'
  : ` It asks to be an admin agent; you are a member of ${p.organization.name}, so it will be a member agent.`);

function render(p) {
  const host = p.hostname ? ` on ${p.hostname}` : '';
  document.getElementById('machine').textContent =
    `${p.client}${host} asks to join ${p.organization.name} as the agent “${p.client_name}” (code ${p.user_code}, ${Math.ceil(p.expires_in / 60)} minutes left).${roleNote(p)}`;
  document.getElementById('catalogs').replaceChildren(...p.warehouses.map((w, i) => catalogRow(w, i, p.requested_level)));
  showForm(forms.decide);

  onSubmit(forms.decide, async () => {
    const chosen = [...document.getElementById('catalogs').rows].filter((r) => r.querySelector('input').checked);
    if (!chosen.length) throw new Error('Choose at least one catalog, or deny.');
    const body = { user_code: p.user_code, ...(orgId ? { org_id: orgId } : {}) };
    // A catalog still to be made has no id yet: the machine's default set is approved at the level chosen.
    if (chosen.some((r) => r.dataset.pending)) body.level = chosen[0].querySelector('select').value;
    else body.warehouses = chosen.map((r) => ({ warehouse_id: r.dataset.warehouse, level: r.querySelector('select').value }));
    done(await asPerson('POST', '/v1/auth/device/approve', body));
  });
  document.getElementById('deny').addEventListener('click', async () => {
    try {
      done(await asPerson('POST', '/v1/auth/device/approve', { user_code: p.user_code, deny: true }));
    } catch (err) {
      forms.decide.querySelector('[role="alert"]').textContent = err.message;
    }
  });
}

onSubmit(forms.lookup, async (f) => location.assign(`/app/device?user_code=${encodeURIComponent(f.user_code.trim())}`));
onSubmit(forms.pickOrg, async (f) => location.assign(here({ org_id: f.org_id })));

if (!session.get()) signInAndReturn();
else if (!userCode) showForm(forms.lookup);
else {
  asPerson('GET', `/v1/auth/device/pending?${new URLSearchParams({ user_code: userCode, ...(orgId ? { org_id: orgId } : {}) })}`)
    .then(render, (err) => (err.code === 'not_signed_in' || err.status === 401 ? signInAndReturn() : notPending(err)));
}
