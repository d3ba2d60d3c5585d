// The signup page's behaviour (signup.html). `?return_to=/app/…` rides along
// with the sign-up: the welcome link lands there once the password is set.
import { api, onSubmit, show } from '/app/app.js';
const form = document.getElementById('signup');
const returnTo = new URLSearchParams(location.search).get('return_to');
onSubmit(form, async (f) => {
  const r = await api('POST', '/v1/auth/signup', { ...f, handle: f.handle.trim().toLowerCase(), ...(returnTo ? { return_to: returnTo } : {}) });
  form.hidden = true;
  show('sent', `Check your mail: a link to set your password is on its way to ${r.email}. It works for 3 days.`);
});
