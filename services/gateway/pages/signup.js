// The signup page's behaviour (signup.html). `?return_to=/app/…` rides along
// with the sign-up: the welcome link lands there once the password is set.
// The Terms in force (GET /v1/auth/config) are named beside the box that
// must be ticked; setting the password then records that version.
import { api, onSubmit, show, showTermsVersion } from '/app/app.js';
const form = document.getElementById('signup');
const returnTo = new URLSearchParams(location.search).get('return_to');
showTermsVersion();
onSubmit(form, async (f) => {
  if (f.accept_terms !== 'true') {
    form.querySelector('#accept_terms').focus();
    throw new Error('Tick the box to accept the Terms of Service and the privacy notice; Floe cannot open an account without it.');
  }
  const { accept_terms: _accepted, ...fields } = f;
  const r = await api('POST', '/v1/auth/signup', { ...fields, handle: fields.handle.trim().toLowerCase(), ...(returnTo ? { return_to: returnTo } : {}) });
  form.hidden = true;
  show('sent', `Check your mail: a link to set your password is on its way to ${r.email}. It works for 3 days.`);
});
