// The login page's behaviour (login.html). `?return_to=/app/…` (a page that
// sent the person here to sign in) is where they land afterwards, and where
// a new account's welcome link leads. A password that is right may be
// followed by a second step: a code from the authenticator app (401
// `mfa_required`), or — when an organisation of the person's requires a
// second factor they lack (401 `mfa_enrolment_required`) — enrolling one,
// which finishes the login. A passkey signs in without the password, or
// serves as the second step. "Continue with" a sign-in provider leaves for
// the provider, which sends the browser back here with `code` and `state`:
// the page hands them to the callback, which signs in, asks for the second
// step, or — for an account that exists but is not linked yet — for the
// code it mailed (401 `email_code_required`).
import { api, leaveForProvider, onSubmit, providerTripBack, session } from '/app/app.js';
import { backupCodesBlock, firstCodeForm, passkeysSupported, proofOf, qrFigure, signWithPasskey } from '/app/authenticator.js';

const asked = new URLSearchParams(location.search).get('return_to');
// Only a page of this site: a path under /app/, never another origin (`//host`, `/app/..//`).
const returnTo = asked && /^\/app\/[A-Za-z0-9/_?=&.%-]*$/.test(asked) && !asked.includes('//') && !asked.includes('..') ? asked : null;
if (returnTo) document.getElementById('signup-link').href = `/app/signup?return_to=${encodeURIComponent(returnTo)}`;

const loginForm = document.getElementById('login');
const linkStep = document.getElementById('link-step');
const secondStep = document.getElementById('second-step');
const enrol = document.getElementById('enrol');

/** Where a finished sign-in lands: this page's return_to, or the one a provider sign-in kept across its trip. */
let landing = returnTo;

function signedIn(answer) {
  session.set(answer);
  location.assign(landing ?? '/app/home');
}

/** Swaps the password form for the next step's. */
function showStep(step) {
  loginForm.hidden = true;
  for (const id of ['passkey-login', 'providers', 'provider-progress']) document.getElementById(id).hidden = true;
  document.getElementById('login-links').hidden = true;
  step.hidden = false;
  step.querySelector('input, button')?.focus();
}

function askForCode(mfaToken, methods) {
  showStep(secondStep);
  const alert = secondStep.querySelector('[role="alert"]');
  const code = secondStep.querySelector('#code');
  if (!methods.includes('totp')) {
    // Passkeys only: no code to type.
    code.hidden = true;
    secondStep.querySelector('label[for="code"]').hidden = true;
    secondStep.querySelector('button[type="submit"]').hidden = true;
    secondStep.querySelector('p:not([role])').textContent = 'Your password is right. Confirm with one of your passkeys.';
  }
  if (methods.includes('passkey') && passkeysSupported()) {
    const button = document.getElementById('second-step-passkey');
    button.hidden = false;
    button.addEventListener('click', async () => {
      alert.textContent = '';
      try {
        const passkey = await signWithPasskey(await api('POST', '/v1/auth/login/mfa/passkey-options', { mfa_token: mfaToken }));
        signedIn(await api('POST', '/v1/auth/login/mfa', { mfa_token: mfaToken, passkey }));
      } catch (err) {
        alert.textContent = err.message;
      }
    });
  }
  onSubmit(secondStep, async ({ code: typed }) => signedIn(await api('POST', '/v1/auth/login/mfa', { mfa_token: mfaToken, ...proofOf(typed) })));
}

// Passwordless: offered where the browser can and the deployment signs in with passkeys.
api('GET', '/v1/auth/config').then((config) => {
  if (!config.passkeys?.passwordless_login || !passkeysSupported() || !config.passkeys.origins.includes(location.origin)) return;
  const box = document.getElementById('passkey-login');
  box.hidden = false;
  document.getElementById('passkey-button').addEventListener('click', async () => {
    const alert = document.getElementById('passkey-alert');
    alert.textContent = '';
    try {
      const signed = await signWithPasskey(await api('POST', '/v1/auth/passkeys/login/options'));
      signedIn(await api('POST', '/v1/auth/passkeys/login', signed));
    } catch (err) {
      alert.textContent = err.message;
    }
  });
}).catch(() => undefined);

async function enrolNow(refusal) {
  const token = refusal.details.enrol_token;
  const orgs = (refusal.details.organizations ?? []).map((o) => o.handle).join(', ');
  document.getElementById('enrol-why').textContent = `${orgs || 'Your organisation'} asks every member for a second factor. Add Floe to an authenticator app (such as 1Password, Google Authenticator or Authy) to finish signing in.`;
  showStep(enrol);
  const steps = document.getElementById('enrol-steps');
  let started;
  try {
    started = await api('POST', '/v1/auth/mfa/totp/start', { enrol_token: token });
  } catch (err) {
    steps.replaceChildren(Object.assign(document.createElement('p'), { role: 'alert', textContent: `${err.message} Reload the page to sign in again.` }));
    return;
  }
  steps.replaceChildren(qrFigure(started.qr_svg, started.secret), firstCodeForm(async (code) => {
    const done = await api('POST', '/v1/auth/mfa/totp/confirm', { enrol_token: token, code });
    const go = document.createElement('button');
    go.type = 'button';
    go.textContent = 'I have saved them — continue';
    go.addEventListener('click', () => signedIn(done.session));
    steps.replaceChildren(backupCodesBlock(done.backup_codes), go);
    go.focus();
  }));
}

/** A refusal that is a next step rather than an end (a second factor, an enrolment, a code to link with): shown; else thrown on. */
function nextStepOf(err) {
  if (err.code === 'mfa_required') return askForCode(err.details.mfa_token, err.details.methods ?? ['totp']), true;
  if (err.code === 'mfa_enrolment_required') return enrolNow(err), true;
  if (err.code === 'email_code_required') return askForLinkCode(err.details), true;
  return false;
}

onSubmit(loginForm, async (f) => {
  try {
    signedIn(await api('POST', '/v1/auth/login', f));
  } catch (err) {
    if (!nextStepOf(err)) throw err;
  }
});

function askForLinkCode(details) {
  document.getElementById('link-why').textContent = `A Floe account with ${details.email} exists. We mailed a six-digit code to that address: enter it to link this sign-in to your account.`;
  showStep(linkStep);
  onSubmit(linkStep, async ({ code }) => {
    try {
      signedIn(await api('POST', '/v1/auth/oidc/link', { link_token: details.link_token, code: code.trim() }));
    } catch (err) {
      if (!nextStepOf(err)) throw err;
    }
  });
}

// The providers the deployment signs in with: one button each.
api('GET', '/v1/auth/config').then((config) => {
  const providers = config.sign_in_providers ?? [];
  if (!providers.length || new URLSearchParams(location.search).has('state')) return;
  const box = document.getElementById('provider-buttons');
  for (const p of providers) {
    const button = Object.assign(document.createElement('button'), { type: 'button', className: 'secondary', textContent: `Continue with ${p.name}` });
    button.addEventListener('click', async () => {
      document.getElementById('provider-alert').textContent = '';
      try {
        leaveForProvider(await api('POST', `/v1/auth/oidc/${p.id}/start`, { accept_terms: true }), { provider: p.id, return_to: returnTo });
      } catch (err) {
        document.getElementById('provider-alert').textContent = err.message;
      }
    });
    box.append(button);
  }
  document.getElementById('providers').hidden = false;
}).catch(() => undefined);

/**
 * Back from a provider: its answer to the callback, and on to the next step.
 * A reauthentication (started by the console's "Confirm it is you" dialog)
 * goes back to the page that asked, whose change can then be made.
 */
async function backFromProvider(params) {
  const pending = providerTripBack();
  // The code is single-use: it leaves the address bar (and the history) at once.
  history.replaceState(null, '', location.pathname);
  const alert = loginForm.querySelector('[role="alert"]');
  if (!pending || pending.state !== params.get('state')) {
    alert.textContent = 'This sign-in was not started from this browser, or it is over. Start again.';
    return;
  }
  if (params.has('error')) {
    alert.textContent = `The provider did not sign you in (${params.get('error_description') ?? params.get('error')}).`;
    return;
  }
  landing = pending.return_to ?? returnTo;
  const progress = document.getElementById('provider-progress');
  loginForm.hidden = true;
  progress.hidden = false;
  try {
    const iss = params.get('iss');
    const answer = await api('POST', `/v1/auth/oidc/${pending.provider}/callback`, { state: params.get('state'), code: params.get('code'), ...(iss ? { iss } : {}) });
    if (pending.purpose === 'reauth') return location.assign(pending.return_to ?? '/app/home');
    signedIn(answer);
  } catch (err) {
    progress.hidden = true;
    if (nextStepOf(err)) return;
    loginForm.hidden = false;
    alert.textContent = err.message;
  }
}

const back = new URLSearchParams(location.search);
if (back.has('state') && (back.has('code') || back.has('error'))) backFromProvider(back);
