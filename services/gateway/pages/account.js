// The account page's behaviour (account.html).
import { asPerson, session } from '/app/app.js';
const alert = document.getElementById('alert');
const fail = (err) => {
  if (err.code === 'not_signed_in' || err.status === 401) return location.assign('/app/login');
  alert.textContent = err.message;
};
async function render() {
  const s = session.get();
  document.getElementById('who').textContent = s ? `Signed in as ${s.email}.` : '';
  const { sessions } = await asPerson('GET', '/v1/auth/sessions');
  const body = document.getElementById('sessions');
  body.replaceChildren(...sessions.map((x) => {
    const row = document.createElement('tr');
    row.dataset.session = x.session_id;
    const who = document.createElement('td');
    who.textContent = `${x.user_agent ?? 'unknown client'}${x.current ? ' (this session)' : ''}`;
    const when = document.createElement('td');
    when.textContent = new Date(x.last_used_at).toLocaleString();
    const act = document.createElement('td');
    if (!x.current) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'secondary';
      b.textContent = 'Sign out';
      b.setAttribute('aria-label', `Sign out the session of ${who.textContent}`);
      b.addEventListener('click', () => asPerson('DELETE', `/v1/auth/sessions/${x.session_id}`).then(render, fail));
      act.append(b);
    }
    row.append(who, when, act);
    return row;
  }));
}
document.getElementById('logout').addEventListener('click', async () => {
  const s = session.get();
  if (s) await asPerson('POST', '/v1/auth/logout', { refresh_token: s.refresh_token }).catch(() => undefined);
  session.clear();
  location.assign('/app/login');
});
render().catch(fail);
