// The welcome page's behaviour (welcome.html).
import { api, onSubmit, session, showTermsVersion, tokenFromUrl } from '/app/app.js';
showTermsVersion();
onSubmit(document.getElementById('welcome'), async (f) => {
  const s = await api('POST', '/v1/auth/password/set', { token: tokenFromUrl() ?? '', password: f.password });
  session.set(s);
  location.assign(s.return_to ?? '/app/home');
});
