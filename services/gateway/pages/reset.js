// The reset page's behaviour (reset.html).
import { api, onSubmit, session, show, tokenFromUrl } from '/app/app.js';
const token = tokenFromUrl();
const ask = document.getElementById('ask');
const choose = document.getElementById('choose');
(token ? choose : ask).hidden = false;
onSubmit(ask, async (f) => {
  const r = await api('POST', '/v1/auth/password/reset/start', f);
  ask.hidden = true;
  show('sent', `If ${r.email} has an account, a reset link is on its way. It works for 30 minutes.`);
});
onSubmit(choose, async (f) => {
  session.set(await api('POST', '/v1/auth/password/reset', { token, password: f.password }));
  location.assign('/app/account');
});
