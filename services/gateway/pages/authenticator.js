// Enrolling an authenticator app, as the login page (a login that an
// organisation's policy sends to enrol) and the account page both show it:
// the QR code with the secret to type by hand, the field for the first code,
// and the ten backup codes shown once. Plain DOM and app.js only, so the
// login page needs nothing of the console's frame.

/** An element with attributes and children (text or nodes). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, v);
  node.append(...children.flat().filter((c) => c !== null && c !== undefined));
  return node;
}

/** The QR code the API drew (an SVG document of paths only), labelled, with the secret beside it for typing by hand. */
export function qrFigure(svgText, secret) {
  const svg = new DOMParser().parseFromString(svgText, 'image/svg+xml').documentElement;
  const figure = el('figure', { class: 'qr' });
  if (svg?.nodeName === 'svg') {
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', 'QR code for your authenticator app');
    svg.setAttribute('width', '192');
    svg.setAttribute('height', '192');
    figure.append(document.importNode(svg, true));
  }
  figure.append(el('figcaption', {}, 'Scan this with your authenticator app, or type the key by hand: ', el('code', { 'data-secret': '' }, secret.match(/.{1,4}/g).join(' '))));
  return figure;
}

/** A form asking for the app's first code; `confirm(code)` runs on submit, its refusal shown in the form. */
export function firstCodeForm(confirm, describe = (err) => err.message) {
  const alert = el('p', { role: 'alert', 'aria-live': 'assertive' });
  const input = el('input', { id: 'totp-code', name: 'code', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9 ]{6,7}', required: '' });
  const button = el('button', { type: 'submit' }, 'Turn on');
  const form = el('form', { id: 'totp-confirm', novalidate: '' },
    el('label', { for: 'totp-code' }, 'The six-digit code the app shows'), input, button, alert);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    alert.textContent = '';
    button.disabled = true;
    try {
      await confirm(input.value.replace(/\s+/g, ''));
    } catch (err) {
      alert.textContent = describe(err);
      input.focus();
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

/** The ten backup codes, shown this once, with a download as a text file. */
export function backupCodesBlock(codes) {
  const file = `Floe backup codes (each works once)\n\n${codes.join('\n')}\n`;
  const link = el('a', { href: `data:text/plain;charset=utf-8,${encodeURIComponent(file)}`, download: 'floe-backup-codes.txt' }, 'Download them as a text file');
  return el('div', { class: 'once', 'data-backup-codes': '' },
    el('p', { class: 'warn' }, 'Save these backup codes now: Floe shows them only this once. Each signs you in once if you lose the app.'),
    el('ul', { class: 'backup-codes' }, codes.map((c) => el('li', {}, el('code', {}, c)))),
    el('p', {}, link));
}

/** What the login and reauthentication forms send for what the person typed: six digits are an app code, anything else a backup code. */
export const proofOf = (typed) => {
  const t = typed.trim();
  return /^\d{3} ?\d{3}$/.test(t) ? { code: t.replace(' ', '') } : { backup_code: t };
};

/** Whether this browser can make and use passkeys. */
export const passkeysSupported = () => typeof PublicKeyCredential !== 'undefined' && typeof PublicKeyCredential.parseCreationOptionsFromJSON === 'function';

/** Makes a passkey for the creation options the API gave: the browser's answer as JSON. */
export async function createPasskey(options) {
  const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) });
  return credential.toJSON();
}

/** Signs a ceremony's options with a passkey: `{ceremony_id, response}` for the API. */
export async function signWithPasskey(ceremony) {
  const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(ceremony.options) });
  return { ceremony_id: ceremony.ceremony_id, response: credential.toJSON() };
}
