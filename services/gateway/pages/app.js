// Floe's pages: each form posts to the public API and shows the error
// envelope's message when it refuses. A login session's tokens are kept in
// this browser's localStorage; an expired access token is refreshed once.

const SESSION = 'floe.session';

export const session = {
  get: () => JSON.parse(localStorage.getItem(SESSION) ?? 'null'),
  set: (s) => localStorage.setItem(SESSION, JSON.stringify({ access_token: s.access_token, refresh_token: s.refresh_token, session_id: s.session_id, email: s.principal?.email ?? null })),
  clear: () => localStorage.removeItem(SESSION),
};

/** A call to the API: the JSON answer, or an Error carrying the envelope's code and message. */
export async function api(method, path, body, token) {
  const res = await fetch(path, {
    method,
    headers: { ...(body ? { 'Content-Type': 'application/json' } : {}), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) {
    const e = answer.error ?? {};
    throw Object.assign(new Error(e.message ?? `the service answered ${res.status}`), { code: e.code, status: res.status, details: e });
  }
  return answer;
}

/** A call as the signed-in person, refreshing the access token once when it has run out. */
export async function asPerson(method, path, body) {
  const s = session.get();
  if (!s) throw Object.assign(new Error('You are not signed in.'), { code: 'not_signed_in' });
  try {
    return await api(method, path, body, s.access_token);
  } catch (err) {
    // Only a run-out access token is refreshed: a stale sign-in (reauth_required) needs the password again,
    // and the second factor's answers (mfa_code_required, invalid_credentials, …) are the person's to read.
    if (err.status !== 401 || err.code !== 'unauthorized') throw err;
    const fresh = await api('POST', '/v1/auth/refresh', { refresh_token: s.refresh_token });
    session.set(fresh);
    return api(method, path, body, fresh.access_token);
  }
}

/** The sign-in or reauthentication under way at a provider: its id, state and where to land, kept across the trip there and back. */
const PROVIDER_TRIP = 'floe.provider-sign-in';

/** Leaves for the provider a start answered with (`trip`: what the login page needs when the browser comes back). */
export function leaveForProvider(started, trip) {
  sessionStorage.setItem(PROVIDER_TRIP, JSON.stringify({ ...trip, state: started.state }));
  location.assign(started.authorization_url);
}

/** The trip a provider sends the browser back from, taken once; null when none was under way. */
export function providerTripBack() {
  const trip = JSON.parse(sessionStorage.getItem(PROVIDER_TRIP) ?? 'null');
  sessionStorage.removeItem(PROVIDER_TRIP);
  return trip;
}

/** Sends the person to sign in, and back to this page afterwards. */
export const signInAndReturn = () => location.assign(`/app/login?return_to=${encodeURIComponent(location.pathname + location.search)}`);

/**
 * Runs a form's action with its values and the form: the button is disabled
 * meanwhile, a refusal is shown in the form's alert region (in the words
 * `describe` gives; the console adds remedies) and the field it names focused.
 */
export function onSubmit(form, action, { describe = (err) => err.message, alert = form.querySelector('[role="alert"]') } = {}) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    alert.textContent = '';
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      await action(Object.fromEntries(new FormData(form)), form);
    } catch (err) {
      alert.textContent = describe(err);
      if (err.details?.field) form.querySelector(`[name="${err.details.field}"]`)?.focus();
    } finally {
      button.disabled = false;
    }
  });
}

export const tokenFromUrl = () => new URLSearchParams(location.search).get('token');
export const show = (id, text) => { const el = document.getElementById(id); el.textContent = text; el.hidden = false; };

/** Writes the Terms version in force (GET /v1/auth/config) into #terms-version; the words already there stay when it cannot be read. */
export async function showTermsVersion() {
  const config = await api('GET', '/v1/auth/config').catch(() => null);
  const el = document.getElementById('terms-version');
  if (config?.terms && el) el.textContent = config.terms.version;
}
