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
    if (err.status !== 401) throw err;
    const fresh = await api('POST', '/v1/auth/refresh', { refresh_token: s.refresh_token });
    session.set(fresh);
    return api(method, path, body, fresh.access_token);
  }
}

/** Runs a form's action: the button is disabled meanwhile, a refusal is shown in the form's alert region. */
export function onSubmit(form, action) {
  const alert = form.querySelector('[role="alert"]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    alert.textContent = '';
    const button = form.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      await action(Object.fromEntries(new FormData(form)));
    } catch (err) {
      alert.textContent = err.message;
      if (err.details?.field) form.querySelector(`[name="${err.details.field}"]`)?.focus();
    } finally {
      button.disabled = false;
    }
  });
}

export const tokenFromUrl = () => new URLSearchParams(location.search).get('token');
export const show = (id, text) => { const el = document.getElementById(id); el.textContent = text; el.hidden = false; };
