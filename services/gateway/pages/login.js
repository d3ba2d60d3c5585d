// The login page's behaviour (login.html).
import { api, onSubmit, session } from '/app/app.js';
onSubmit(document.getElementById('login'), async (f) => {
  session.set(await api('POST', '/v1/auth/login', f));
  location.assign('/app/account');
});
