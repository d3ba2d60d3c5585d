import { authenticatorApp } from '../support/authenticator-app';
import { invitedMemberWithPassword, personWithPassword, type PersonWithSession } from '../support/people';
import { bearer, expectError, gateway, newPrincipal, signInGoesStale, sql } from './helpers';

// The second factor (TOTP with backup codes), the login's second step,
// reauthentication, and an organisation's policy requiring a factor —
// through the gateway, with codes computed by otplib from the secret the
// enrolment shows, as an authenticator app does.

const PASSWORD = 'a long enough passphrase 42';
const mfa = (access: string) => ({ get: () => gateway().get('/v1/auth/mfa').set(bearer(access)) });
const start = (access: string) => gateway().post('/v1/auth/mfa/totp/start').set(bearer(access)).send({});
const confirm = (access: string, code: string) => gateway().post('/v1/auth/mfa/totp/confirm').set(bearer(access)).send({ code });
const login = (p: { email: string; password: string }) => gateway().post('/v1/auth/login').send({ email: p.email, password: p.password });
const secondStep = (body: Record<string, string>) => gateway().post('/v1/auth/login/mfa').send(body);
const reauth = (access: string, body: Record<string, string>) => gateway().post('/v1/auth/reauth').set(bearer(access)).send(body);
const sessionOf = async (access: string) => (await gateway().get('/v1/auth/sessions').set(bearer(access))).body.sessions.find((s: any) => s.current).session_id as string;

/** A person with the authenticator app enrolled: its app and the ten backup codes. */
async function enrolled(prefix: string): Promise<{ person: PersonWithSession; app: () => Promise<string>; backup: string[] }> {
  const person = await personWithPassword(prefix, PASSWORD);
  const started = await start(person.access);
  expect(started.status).toBe(200);
  const app = authenticatorApp(started.body.secret);
  const done = await confirm(person.access, await app());
  expect(done.status).toBe(200);
  return { person, app, backup: done.body.backup_codes };
}

/** Logs in with the password: the 401 `mfa_required` answer's token. */
async function mfaToken(p: { email: string; password: string }): Promise<string> {
  const res = await login(p);
  expectError(res, 401, 'mfa_required');
  return res.body.error.mfa_token as string;
}

describe('enrolling an authenticator app', () => {
  test('start shows the secret once (sealed at rest), confirm with a code turns it on with ten backup codes kept as hashes', async () => {
    const person = await personWithPassword('mfa-enrol', PASSWORD);
    expect((await mfa(person.access).get()).body).toEqual({ totp: { enabled: false, enabled_at: null, pending: false }, backup_codes: { remaining: 0, generated_at: null }, passkeys: 0, required_by: [] });
    expectError(await confirm(person.access, '123456'), 404, 'mfa_not_started');

    const started = await start(person.access);
    expect(started.status).toBe(200);
    expect(started.headers['cache-control']).toBe('no-store');
    expect(started.body).toMatchObject({ algorithm: 'SHA1', digits: 6, period: 30, confirm_within_seconds: 600 });
    expect(started.body.secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(started.body.otpauth_uri).toBe(`otpauth://totp/Floe:${encodeURIComponent(person.email)}?secret=${started.body.secret}&issuer=Floe`);
    expect(started.body.qr_svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect((await mfa(person.access).get()).body.totp).toEqual({ enabled: false, enabled_at: null, pending: true });
    const [stored] = await sql(`SELECT secret FROM totp_factors WHERE principal_id = $1`, [person.principalId]);
    expect(stored.secret).toMatch(/^v1:/);
    expect(stored.secret).not.toContain(started.body.secret);

    expectError(await confirm(person.access, '000000'), 400, 'invalid_mfa_code');
    const app = authenticatorApp(started.body.secret);
    const done = await confirm(person.access, await app());
    expect(done.status).toBe(200);
    expect(done.headers['cache-control']).toBe('no-store');
    expect(done.body).toMatchObject({ enabled: true, session: null });
    expect(done.body.backup_codes).toHaveLength(10);
    expect(new Set(done.body.backup_codes).size).toBe(10);
    for (const c of done.body.backup_codes) expect(c).toMatch(/^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    const hashes = await sql(`SELECT hash FROM backup_codes WHERE principal_id = $1`, [person.principalId]);
    expect(hashes).toHaveLength(10);
    for (const h of hashes) expect(done.body.backup_codes).not.toContain(h.hash);

    const status = (await mfa(person.access).get()).body;
    expect(status.totp.enabled).toBe(true);
    expect(status.backup_codes.remaining).toBe(10);
    expectError(await start(person.access), 409, 'mfa_already_enabled');
    expectError(await confirm(person.access, '123456'), 409, 'mfa_already_enabled');
  });

  test('twenty confirmations of one code at once: exactly one turns the factor on', async () => {
    const person = await personWithPassword('mfa-race', PASSWORD);
    const started = await start(person.access);
    const code = await authenticatorApp(started.body.secret)();
    const answers = await Promise.all(Array.from({ length: 20 }, () => confirm(person.access, code)));
    const ok = answers.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) {
      // The rest: already on, or (ten failures' worth reserved at once) told to wait.
      expect([[409, 'mfa_already_enabled'], [429, 'rate_limited']]).toContainEqual([r.status, r.body.error.code]);
    }
    expect(await sql(`SELECT count(*)::int AS n FROM backup_codes WHERE principal_id = $1`, [person.principalId])).toEqual([{ n: 10 }]);
  });

  test('an API key or an agent cannot enrol: the factor belongs to a login session', async () => {
    const human = await newPrincipal('human');
    const agent = await newPrincipal('agent');
    expectError(await gateway().post('/v1/auth/mfa/totp/start').set(bearer(human.api_key)).send({}), 403, 'session_required');
    expectError(await gateway().get('/v1/auth/mfa').set(bearer(agent.api_key)), 403, 'not_a_person');
    expectError(await gateway().post('/v1/auth/mfa/totp/start').send({}), 401, 'unauthorized');
    expectError(await gateway().post('/v1/auth/mfa/totp/start').send({ enrol_token: 'enr_nothing' }), 401, 'invalid_enrol_token');
  });

  test('a session signed in over 10 minutes ago reauthenticates before it enrols', async () => {
    const person = await personWithPassword('mfa-stale', PASSWORD);
    await signInGoesStale(await sessionOf(person.access));
    expectError(await start(person.access), 401, 'reauth_required');
    expect((await reauth(person.access, { password: PASSWORD })).status).toBe(200);
    expect((await start(person.access)).status).toBe(200);
  });
});

describe('logging in with a second factor', () => {
  test('the password answers mfa_required with a token; a code finishes it once, a replayed code and a spent token are refused', async () => {
    const { person, app } = await enrolled('mfa-login');
    const res = await login(person);
    expectError(res, 401, 'mfa_required');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.error).toMatchObject({ expires_in: 300, methods: ['totp', 'backup_code'], next: 'POST /v1/auth/login/mfa {mfa_token, code}' });
    const token = res.body.error.mfa_token as string;
    expect(token).toMatch(/^mfa_[0-9a-f]{48}$/);
    expectError(await gateway().get('/v1/warehouses').set(bearer(token)), 401, 'unauthorized');

    expectError(await secondStep({ mfa_token: token }), 401, 'mfa_code_required');
    expectError(await secondStep({ mfa_token: token, code: '000000' }), 401, 'invalid_mfa_code');
    expectError(await secondStep({ mfa_token: 'mfa_0000', code: '123456' }), 401, 'invalid_mfa_token');
    const used = await app();
    const done = await secondStep({ mfa_token: token, code: used });
    expect(done.status).toBe(200);
    expect(done.headers['cache-control']).toBe('no-store');
    expect(done.body).toMatchObject({ token_type: 'Bearer', principal_id: person.principalId, second_factor: { method: 'totp', backup_codes_left: 10 } });
    expect((await gateway().get('/v1/warehouses').set(bearer(done.body.access_token))).status).toBe(200);

    expectError(await secondStep({ mfa_token: token, code: '123456' }), 401, 'invalid_mfa_token');
    // The code the server accepted, once more with a fresh login: that step is spent.
    expectError(await secondStep({ mfa_token: await mfaToken(person), code: used }), 401, 'invalid_mfa_code');
  });

  test('a backup code works once; twenty uses of one at once let exactly one in', async () => {
    const { person, backup } = await enrolled('mfa-backup');
    const first = await secondStep({ mfa_token: await mfaToken(person), backup_code: backup[0].toUpperCase().replace(/-/g, ' ') });
    expect(first.status).toBe(200);
    expect(first.body.second_factor).toEqual({ method: 'backup_code', backup_codes_left: 9 });
    expectError(await secondStep({ mfa_token: await mfaToken(person), backup_code: backup[0] }), 401, 'invalid_mfa_code');

    const tokens = await Promise.all(Array.from({ length: 20 }, () => mfaToken(person)));
    const answers = await Promise.all(tokens.map((t) => secondStep({ mfa_token: t, backup_code: backup[1] })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) {
      expect([[401, 'invalid_mfa_code'], [429, 'rate_limited']]).toContainEqual([r.status, r.body.error.code]);
    }
    expect(await sql(`SELECT count(*)::int AS n FROM backup_codes WHERE principal_id = $1 AND used_at IS NULL`, [person.principalId])).toEqual([{ n: 8 }]);
  });

  test('wrong codes count like failed logins: the eleventh within the hour is 429', async () => {
    const { person } = await enrolled('mfa-limit');
    const token = await mfaToken(person);
    for (let i = 0; i < 10; i++) expectError(await secondStep({ mfa_token: token, code: '000000' }), 401, 'invalid_mfa_code');
    const spent = expectError(await secondStep({ mfa_token: token, code: '000000' }), 429, 'rate_limited');
    expect(spent.retry_after_seconds).toEqual(expect.any(Number));
  });

  test('a secret the deployment cannot open answers 503 mfa_unavailable, not a login failure', async () => {
    const { person } = await enrolled('mfa-broken');
    // The sealed value's last characters changed: it no longer opens under the deployment's key.
    await sql(`UPDATE totp_factors SET secret = left(secret, -4) || CASE WHEN right(secret, 4) = 'AAAA' THEN 'BBBB' ELSE 'AAAA' END WHERE principal_id = $1`, [person.principalId]);
    const token = await mfaToken(person);
    const res = await secondStep({ mfa_token: token, code: '123456' });
    expectError(res, 503, 'mfa_unavailable');
    expect(res.headers['retry-after']).toBe('30');
  });
});

describe('turning the factor off, and new backup codes', () => {
  test('disable wants a recent sign-in and a code; then login needs the password only', async () => {
    const { person, app, backup } = await enrolled('mfa-off');
    const session = await sessionOf(person.access);
    const fresh = await gateway().post('/v1/auth/mfa/backup-codes').set(bearer(person.access)).send({ code: await app() });
    expect(fresh.status).toBe(200);
    expect(fresh.body.replaced).toBe(10);
    expect(fresh.body.backup_codes).toHaveLength(10);
    expectError(await secondStep({ mfa_token: await mfaToken(person), backup_code: backup[2] }), 401, 'invalid_mfa_code');

    await signInGoesStale(session);
    expectError(await gateway().post('/v1/auth/mfa/disable').set(bearer(person.access)).send({ code: '000000' }), 401, 'reauth_required');
    expectError(await reauth(person.access, { password: PASSWORD }), 401, 'mfa_code_required');
    expectError(await reauth(person.access, { password: PASSWORD, code: '000000' }), 401, 'invalid_mfa_code');
    expect((await reauth(person.access, { password: PASSWORD, backup_code: fresh.body.backup_codes[0] })).status).toBe(200);
    expectError(await gateway().post('/v1/auth/mfa/disable').set(bearer(person.access)).send({}), 401, 'mfa_code_required');
    const off = await gateway().post('/v1/auth/mfa/disable').set(bearer(person.access)).send({ backup_code: fresh.body.backup_codes[1] });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ disabled: true, backup_codes_removed: 10 });
    expectError(await gateway().post('/v1/auth/mfa/disable').set(bearer(person.access)).send({ code: '123456' }), 409, 'mfa_not_enabled');
    expectError(await gateway().post('/v1/auth/mfa/backup-codes').set(bearer(person.access)).send({ code: '123456' }), 409, 'mfa_not_enabled');
    expect(await sql(`SELECT count(*)::int AS n FROM totp_factors WHERE principal_id = $1`, [person.principalId])).toEqual([{ n: 0 }]);
    expect((await login(person)).status).toBe(200);
  });
});

describe('reauthentication', () => {
  test('a stale session signs in again with its password and may make sensitive changes; wrong or missing answers are refused', async () => {
    const person = await personWithPassword('reauth', PASSWORD);
    const session = await sessionOf(person.access);
    await signInGoesStale(session);
    const uploaders = `/v1/warehouses/${person.lake}/uploaders`;
    expectError(await gateway().post(uploaders).set(bearer(person.access)).send({ name: 'before' }), 401, 'reauth_required');
    expectError(await reauth(person.access, {}), 400, 'password_required');
    expectError(await reauth(person.access, { password: 'not the password at all' }), 401, 'invalid_credentials');
    const res = await reauth(person.access, { password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ reauthenticated: true, session_id: session });
    expect(Date.parse(res.body.sensitive_changes_until) - Date.parse(res.body.signed_in_at)).toBe(600_000);
    expect((await gateway().post(uploaders).set(bearer(person.access)).send({ name: 'after' })).status).toBe(201);
  });

  test('only a person\'s login session reauthenticates', async () => {
    const human = await newPrincipal('human');
    const agent = await newPrincipal('agent');
    expectError(await reauth(human.api_key, { password: PASSWORD }), 403, 'session_required');
    expectError(await reauth(agent.api_key, { password: PASSWORD }), 403, 'not_a_person');
    expectError(await gateway().post('/v1/auth/reauth').send({ password: PASSWORD }), 401, 'unauthorized');
  });
});

describe('an organisation that requires a second factor', () => {
  test('its members enrol on their next login with the enrol token, which then finishes the login; they cannot turn it off', async () => {
    const admin = await personWithPassword('mfa-policy', PASSWORD);
    const member = await invitedMemberWithPassword(admin, 'mfa-member', PASSWORD);
    const { email } = member;
    const key = await gateway().post('/v1/api-keys').set(bearer(member.access)).send({ label: 'laptop' });
    expect(key.status).toBe(201);

    const changed = await gateway().patch(`/v1/orgs/${admin.org.org_id}/policy`).set(bearer(admin.access)).send({ second_factor: 'required' });
    expect(changed.status).toBe(200);
    expect(changed.body.policy.second_factor).toBe('required');

    const res = await login({ email, password: PASSWORD });
    expectError(res, 401, 'mfa_enrolment_required');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.error.organizations).toEqual([{ org_id: admin.org.org_id, handle: admin.org.handle }]);
    const enrol = res.body.error.enrol_token as string;
    expect(enrol).toMatch(/^enr_[0-9a-f]{48}$/);
    expectError(await gateway().post('/v1/tokens').send({ api_key: key.body.api_key }), 403, 'mfa_enrolment_required');

    const started = await gateway().post('/v1/auth/mfa/totp/start').send({ enrol_token: enrol });
    expect(started.status).toBe(200);
    const app = authenticatorApp(started.body.secret);
    expectError(await gateway().post('/v1/auth/mfa/totp/confirm').send({ enrol_token: 'enr_0000', code: '123456' }), 401, 'invalid_enrol_token');
    const done = await gateway().post('/v1/auth/mfa/totp/confirm').send({ enrol_token: enrol, code: await app() });
    expect(done.status).toBe(200);
    expect(done.body.session).toMatchObject({ token_type: 'Bearer', principal_id: member.principalId });
    expect((await gateway().get('/v1/warehouses').set(bearer(done.body.session.access_token))).status).toBe(200);
    expectError(await gateway().post('/v1/auth/mfa/totp/confirm').send({ enrol_token: enrol, code: '123456' }), 401, 'invalid_enrol_token');
    expect((await gateway().post('/v1/tokens').send({ api_key: key.body.api_key })).status).toBe(200);

    const status = await mfa(done.body.session.access_token).get();
    expect(status.body.required_by).toEqual([{ org_id: admin.org.org_id, handle: admin.org.handle, name: admin.org.name }]);
    expectError(await gateway().post('/v1/auth/mfa/disable').set(bearer(done.body.session.access_token)).send({ code: '123456' }), 409, 'mfa_required_by_policy');
    // The admin, without a factor, is asked to enrol too.
    expectError(await login(admin), 401, 'mfa_enrolment_required');
  });
});
