// The login page's behaviour (login.html). `?return_to=/app/…` (a page that
// sent the person here to sign in) is where they land afterwards, and where
// a new account's welcome link leads.
import { api, onSubmit, session } from '/app/app.js';

const asked = new URLSearchParams(location.search).get('return_to');
// Only a page of this site: a path under /app/, never another origin (`//host`, `/app/..//`).
const returnTo = asked && /^\/app\/[A-Za-z0-9/_?=&.%-]*$/.test(asked) && !asked.includes('//') && !asked.includes('..') ? asked : null;
if (returnTo) document.getElementById('signup-link').href = `/app/signup?return_to=${encodeURIComponent(returnTo)}`;

onSubmit(document.getElementById('login'), async (f) => {
  session.set(await api('POST', '/v1/auth/login', f));
  location.assign(returnTo ?? '/app/account');
});
