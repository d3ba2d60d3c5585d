// The signup page's behaviour (signup.html).
import { api, onSubmit, show } from '/app/app.js';
const form = document.getElementById('signup');
onSubmit(form, async (f) => {
  const r = await api('POST', '/v1/auth/signup', { ...f, handle: f.handle.trim().toLowerCase() });
  form.hidden = true;
  show('sent', `Check your mail: a link to set your password is on its way to ${r.email}. It works for 3 days.`);
});
