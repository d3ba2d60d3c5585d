// The account page (account.html): who is signed in, their organisations,
// their own API keys (so a person who signed up in the browser can get one
// for an engine or the command line; each secret shown once) and their
// signed-in sessions, any of which but this one they may sign out; and their
// second factor: an authenticator app with backup codes, turned on, renewed
// or off here (each a sensitive change: the console asks for the password
// again when the sign-in is over 10 minutes old).
import { session } from '/app/app.js';
import { backupCodesBlock, createPasskey, firstCodeForm, passkeysSupported, proofOf, qrFigure } from '/app/authenticator.js';
import { actionButton, ago, call, consolePage, empty, explain, form, field, h, section, shownOnce, table, when } from '/app/console.js';

/** A key made on this page, shown at the top of its section by the next drawing only. */
let madeKey = null;
/** Backup codes made on this page (an enrolment or a renewal), shown by the next drawing only. */
let madeCodes = null;

const BROWSERS = [[/Edg(A|iOS)?\//, 'Edge'], [/OPR\//, 'Opera'], [/Firefox\/|FxiOS\//, 'Firefox'], [/Chrom(e|ium)\/|CriOS\//, 'Chrome'],
  [/Version\/[\d.]+.*Safari\//, 'Safari'], [/^floe-cli\//, 'Floe command line'], [/^curl\//, 'curl'], [/python/i, 'Python'], [/^node|undici/i, 'Node.js']];
const SYSTEMS = [[/Windows/, 'Windows'], [/Android/, 'Android'], [/iPhone|iPad|iPod/, 'iOS'], [/CrOS/, 'ChromeOS'], [/Mac OS X|Macintosh/, 'macOS'], [/Linux/, 'Linux']];

/** A User-Agent in words ("Chrome on Linux"); one it does not recognise is shown as sent. */
function clientInWords(ua) {
  if (!ua) return 'unknown client';
  const browser = BROWSERS.find(([re]) => re.test(ua))?.[1];
  if (!browser) return ua;
  const system = SYSTEMS.find(([re]) => re.test(ua))?.[1];
  return system ? `${browser} on ${system}` : browser;
}

function organisations(ctx) {
  return section('orgs-title', 'Your organisations',
    ctx.orgs.length
      ? h('ul', {}, ctx.orgs.map((o) => h('li', {}, h('a', { href: `/app/org?org=${encodeURIComponent(o.org_id)}` }, o.name), ` (${o.handle}) · ${o.role}`)))
      : empty('You are not in an organisation yet. An invitation in your mail leads to one.'));
}

function apiKeys(ctx, keys) {
  const made = madeKey;
  madeKey = null;
  const create = form({
    id: 'key-form', submit: 'Create API key',
    hint: 'An API key acts as you, with your roles and catalog levels, until you revoke it.',
    fields: [field('label', 'What the key is for', { placeholder: 'laptop', hint: '1 to 200 characters, e.g. the machine or tool that uses it.' })],
    onsubmit: async ({ label }) => {
      const key = await call('POST', '/v1/api-keys', { label });
      madeKey = key;
      await ctx.refresh();
    },
  });
  const rows = keys.map((k) => [
    k.label, h('code', {}, k.key_id), when(k.created_at), k.last_used_at ? ago(k.last_used_at) : 'never',
    k.status === 'revoked' ? h('span', { class: 'badge' }, 'revoked') : h('span', { class: 'badge' }, 'active'),
    k.status === 'active'
      ? actionButton('Revoke', async () => { await call('DELETE', `/v1/api-keys/${encodeURIComponent(k.key_id)}`); await ctx.refresh(); },
        { secondary: true, danger: true, ariaLabel: `Revoke the API key ${k.label}` })
      : '',
  ]);
  return section('keys-title', 'Your API keys',
    made ? h('div', { dataset: { madeKey: made.key_id } }, h('p', { role: 'status' }, `API key “${made.label}” made.`), shownOnce(made.api_key, `API key ${made.label}`)) : null,
    create,
    keys.length
      ? table('keys-title', ['Label', 'Key id', 'Made', 'Last used', 'Status', h('span', { class: 'hint' }, 'Action')], rows, { rowData: keys.map((k) => ({ key: k.key_id })) })
      : empty('No API keys yet.'));
}

/** A form asking for a code (or a backup code) before `action(proof)`. */
function proofForm(id, submit, action) {
  return form({
    id, submit,
    fields: [field('code', 'A code from your authenticator app, or a backup code', { autocomplete: 'one-time-code' })],
    onsubmit: async ({ code }) => action(proofOf(code)),
  });
}

function secondFactor(ctx, status) {
  const codes = madeCodes;
  madeCodes = null;
  const policy = status.required_by.length
    ? h('p', { class: 'hint' }, `Required by ${status.required_by.map((o) => o.name).join(', ')}: it cannot be turned off while you are a member.`)
    : null;
  if (!status.totp.enabled) {
    const steps = h('div', { id: 'totp-steps' });
    const begin = actionButton('Set up an authenticator app', async () => {
      const started = await call('POST', '/v1/auth/mfa/totp/start');
      steps.replaceChildren(qrFigure(started.qr_svg, started.secret), firstCodeForm(async (code) => {
        madeCodes = (await call('POST', '/v1/auth/mfa/totp/confirm', { code })).backup_codes;
        await ctx.refresh();
      }, explain));
      steps.querySelector('input')?.focus();
    });
    return section('mfa-title', 'Two-factor authentication',
      h('p', {}, 'Off. With it on, signing in asks for a code from an app on your phone as well as your password.'), policy, begin, steps);
  }
  return section('mfa-title', 'Two-factor authentication',
    codes ? h('div', { role: 'status' }, h('p', {}, 'Two-factor authentication is on.'), backupCodesBlock(codes)) : null,
    h('p', {}, 'On since ', when(status.totp.enabled_at), `; ${status.backup_codes.remaining} of 10 backup codes left.`), policy,
    h('h3', {}, 'New backup codes'),
    proofForm('backup-codes-form', 'Make ten new backup codes', async (proof) => {
      madeCodes = (await call('POST', '/v1/auth/mfa/backup-codes', proof)).backup_codes;
      await ctx.refresh();
    }),
    status.required_by.length ? null : [
      h('h3', {}, 'Turn it off'),
      proofForm('mfa-off-form', 'Turn off two-factor authentication', async (proof) => {
        await call('POST', '/v1/auth/mfa/disable', proof);
        await ctx.refresh();
      }),
    ]);
}

function passkeys(ctx, list, config) {
  const here = config.passkeys?.origins ?? [];
  const usable = passkeysSupported() && here.includes(location.origin);
  const add = usable
    ? form({
      id: 'passkey-form', submit: 'Add a passkey',
      hint: 'A passkey signs you in with this device’s screen lock or a security key, instead of the password; it also serves as your second factor.',
      fields: [field('name', 'What to call it', { placeholder: 'laptop', hint: 'e.g. the device or key that holds it.' })],
      onsubmit: async ({ name }) => {
        const ceremony = await call('POST', '/v1/auth/passkeys/register/options');
        await call('POST', '/v1/auth/passkeys', { ceremony_id: ceremony.ceremony_id, response: await createPasskey(ceremony.options), name });
        await ctx.refresh();
      },
    })
    : h('p', { class: 'hint' }, passkeysSupported()
      ? `Passkeys are made and used from ${here.join(' or ')}; open this page there to add one.`
      : 'This browser cannot make passkeys.');
  const rows = list.passkeys.map((p) => [
    p.name, when(p.created_at), p.last_used_at ? ago(p.last_used_at) : 'never', p.device_type === 'multiDevice' ? 'synced' : 'this device only',
    h('span', {},
      actionButton('Rename', async () => {
        const name = window.prompt('A new name for the passkey', p.name);
        if (name && name.trim()) { await call('PATCH', `/v1/auth/passkeys/${encodeURIComponent(p.passkey_id)}`, { name: name.trim() }); await ctx.refresh(); }
      }, { secondary: true, ariaLabel: `Rename the passkey ${p.name}` }),
      actionButton('Delete', async () => { await call('DELETE', `/v1/auth/passkeys/${encodeURIComponent(p.passkey_id)}`); await ctx.refresh(); },
        { secondary: true, danger: true, ariaLabel: `Delete the passkey ${p.name}` })),
  ]);
  return section('passkeys-title', 'Passkeys',
    add,
    list.passkeys.length
      ? table('passkeys-title', ['Name', 'Added', 'Last used', 'Kind', h('span', { class: 'hint' }, 'Actions')], rows, { rowData: list.passkeys.map((p) => ({ passkey: p.name })) })
      : empty(`No passkeys yet (up to ${list.limit}).`));
}

/** The account's links at sign-in providers: unlink one (not the only way in of an account without a password: the API says so). */
function signInProviders(ctx, linked, config) {
  const providers = config.sign_in_providers ?? [];
  if (!providers.length && !linked.length) return null;
  const nameOf = (i) => providers.find((p) => p.id === i.provider)?.name ?? i.issuer;
  const rows = linked.map((i) => [
    nameOf(i), i.email ?? '', when(i.created_at), i.last_used_at ? ago(i.last_used_at) : 'never',
    actionButton('Unlink', async () => { await call('DELETE', `/v1/auth/identities/${encodeURIComponent(i.identity_id)}`); await ctx.refresh(); },
      { secondary: true, danger: true, ariaLabel: `Unlink ${nameOf(i)}` }),
  ]);
  const unlinked = providers.filter((p) => !linked.some((i) => i.provider === p.id));
  return section('providers-title', 'Sign-in providers',
    linked.length
      ? table('providers-title', ['Provider', 'Address', 'Linked', 'Last used', h('span', { class: 'hint' }, 'Action')], rows, { rowData: linked.map((i) => ({ identity: i.identity_id })) })
      : empty('You sign in with your password only.'),
    unlinked.length
      ? h('p', { class: 'hint' }, `To sign in with ${unlinked.map((p) => p.name).join(' or ')} too, sign out and choose it on the login page: an account with your address is linked by a code we mail you.`)
      : null);
}

function sessions(ctx, list) {
  const rows = list.map((x) => {
    const client = clientInWords(x.user_agent);
    return [
      h('span', {}, h('span', { title: x.user_agent ?? null }, client), x.current ? ' (this session)' : ''),
      when(x.last_used_at),
      x.current ? '' : actionButton('Sign out', async () => { await call('DELETE', `/v1/auth/sessions/${encodeURIComponent(x.session_id)}`); await ctx.refresh(); },
        { secondary: true, ariaLabel: `Sign out the session of ${client}` }),
    ];
  });
  return section('sessions-title', 'Signed-in sessions',
    table('sessions-title', ['Browser or client', 'Last used', h('span', { class: 'hint' }, 'Action')], rows, { rowData: list.map((x) => ({ session: x.session_id })) }));
}

await consolePage({
  area: 'account',
  title: 'Your account',
  needsOrg: false,
  render: async (ctx) => {
    const [{ keys }, { sessions: list }, factor, passkeyList, config, { identities }] = await Promise.all([
      call('GET', '/v1/api-keys'), call('GET', '/v1/auth/sessions'), call('GET', '/v1/auth/mfa'), call('GET', '/v1/auth/passkeys'), call('GET', '/v1/auth/config'),
      call('GET', '/v1/auth/identities'),
    ]);
    const email = session.get()?.email;
    ctx.body.append(...[
      h('p', {}, email ? `Signed in as ${email}.` : 'Signed in.'),
      organisations(ctx),
      secondFactor(ctx, factor),
      passkeys(ctx, passkeyList, config),
      signInProviders(ctx, identities, config),
      apiKeys(ctx, keys),
      sessions(ctx, list),
    ].filter(Boolean));
  },
});
