import { loadConfig } from '@floe/config';
import { bearer, db, expectError, gateway, identity, sql, stack } from './helpers';
import { postJsonFrom, type AddressedAnswer } from '../support/from-address';
import { codeIn, liftResendGate, mailsTo, newestMailTo } from '../support/mail';

// Sign-up by e-mail code and key recovery, through the gateway, with the
// codes read from the mails the development mail server received.

let n = 0;
const uniq = () => `${process.pid}-${Date.now().toString(36)}-${++n}`;
const newEmail = () => `signup-${uniq()}@example.com`;
const start = (body: Record<string, unknown>) => gateway().post('/v1/signup/start').send(body);
const verify = (body: Record<string, unknown>) => gateway().post('/v1/signup/verify').send({ accept_terms: true, ...body });

/** Makes a pending code look older than the 60 s resend rule, as a minute passing would. */
async function ageCode(email: string, purpose: 'signup' | 'recovery', seconds: number): Promise<void> {
  const pool = db();
  try {
    await pool.query(`UPDATE email_codes SET created_at = created_at - make_interval(secs => $3) WHERE email = $1 AND purpose = $2`, [email, purpose, seconds]);
  } finally {
    await pool.end();
  }
  if (seconds >= 60) await liftResendGate(email, [purpose]);
}

async function signedUp(email = newEmail(), extra: Record<string, unknown> = {}) {
  const s = await start({ email, workspace: `ws-${uniq()}`.slice(0, 40), ...extra });
  expect(s.status).toBe(202);
  const code = codeIn(await newestMailTo(email));
  const v = await verify({ email, code });
  expect(v.status).toBe(201);
  return { email, start: s.body, verify: v.body };
}

test('every sign-up route refuses a throwaway-mail address with 400 disposable_email, and mails nothing', async () => {
  const email = `signup-${uniq()}@mailinator.com`;
  expect(expectError(await start({ email, workspace: 'throwaway' }), 400, 'disposable_email').field).toBe('email');
  expectError(await gateway().post('/v1/auth/signup').send({ email, full_name: 'Throw Away', organization_name: 'Throwaway', handle: `tw-${Date.now().toString(36)}` }), 400, 'disposable_email');
  expectError(await gateway().post('/v1/signup').send({ email, workspace: 'throwaway', accept_terms: true }), 400, 'disposable_email');
  expect(await mailsTo(email)).toEqual([]);
});

describe('POST /v1/signup/start and /verify', () => {
  test('a code is mailed, a wrong code counts down, the right one makes the account, its key, organisation, project and lake', async () => {
    const email = newEmail();
    const s = await start({ email, workspace: 'acme' });
    expect(s.status).toBe(202);
    expect(s.body).toMatchObject({ email, workspace: 'acme', delivery: 'email', expires_in: 600, code_length: 6 });
    expect(s.body.terms).toMatchObject({ version: expect.any(String), url: expect.any(String), privacy_url: expect.any(String) });
    expect(s.body.organization).toBeUndefined();
    const mail = await newestMailTo(email);
    const code = codeIn(mail);
    // Only a hash is kept.
    const pool = db();
    try {
      const { rows } = await pool.query(`SELECT code_hash FROM email_codes WHERE email = $1`, [email]);
      expect(rows).toHaveLength(1);
      expect(rows[0].code_hash).not.toContain(code);
    } finally {
      await pool.end();
    }

    const wrong = await verify({ email, code: code === '000000' ? '111111' : '000000' });
    expect(expectError(wrong, 401, 'invalid_code').attempts_left).toBe(4);

    const v = await verify({ email, code, engine: 'pyiceberg' });
    expect(v.status).toBe(201);
    expect(v.body).toMatchObject({
      api_key: expect.stringMatching(/^al_live_/), principal_id: expect.stringMatching(/^p_/), project_id: expect.any(String), warehouse_id: expect.any(String),
      organization: { org_id: expect.stringMatching(/^org_/), role: 'admin', joined_via: 'creator' },
      terms: { accepted: true },
    });
    expect(v.body.connection).toMatchObject({ engine: 'pyiceberg', warehouse_id: v.body.warehouse_id });
    const lakes = await gateway().get('/v1/warehouses').set(bearer(v.body.api_key));
    expect(lakes.status).toBe(200);
    expect(lakes.body.warehouses.map((w: { name: string }) => w.name)).toEqual(['lake']);
    const projects = await gateway().get('/v1/projects').set(bearer(v.body.api_key));
    expect(projects.body.projects.map((p: { name: string }) => p.name)).toEqual(['acme']);
    const audit = await gateway().get('/v1/audit').query({ action: 'signup.*' }).set(bearer(v.body.api_key));
    expect(audit.body.events.map((e: { action: string }) => e.action).sort()).toEqual(['signup.complete', 'signup.verify']);

    // The code is spent.
    expectError(await verify({ email, code }), 404, 'no_pending_signup');
    // The address now has an account.
    expectError(await start({ email }), 409, 'already_exists');
  });

  test('refusals: terms, no pending sign-up, an expired code, five wrong attempts spend the code', async () => {
    const email = newEmail();
    expectError(await verify({ email, code: '123456' }), 404, 'no_pending_signup');
    expect((await start({ email })).status).toBe(202);
    const code = codeIn(await newestMailTo(email));
    const noTerms = await gateway().post('/v1/signup/verify').send({ email, code, accept_terms: 'yes' });
    expectError(noTerms, 400, 'terms_required');
    const wrongCode = code === '000000' ? '111111' : '000000';
    for (let left = 4; left >= 0; left--) expect(expectError(await verify({ email, code: wrongCode }), 401, 'invalid_code').attempts_left).toBe(left);
    // Spent: even the right code is refused now.
    expect(expectError(await verify({ email, code }), 401, 'invalid_code').attempts_left).toBe(0);

    // A new code after a minute; then let it expire.
    await ageCode(email, 'signup', 61);
    expect((await start({ email })).status).toBe(202);
    const fresh = codeIn(await newestMailTo(email, 2));
    const pool = db();
    try {
      await pool.query(`UPDATE email_codes SET expires_at = now() - interval '1 second' WHERE email = $1`, [email]);
    } finally {
      await pool.end();
    }
    expectError(await verify({ email, code: fresh }), 410, 'code_expired');
  });

  test('a new code no sooner than 60 s after the last, and five starts per hour per address', async () => {
    const email = newEmail();
    expect((await start({ email })).status).toBe(202);
    const again = await start({ email });
    const err = expectError(again, 429, 'rate_limited');
    expect(err.retry_after_seconds).toBeGreaterThan(50);
    expect(Number(again.headers['retry-after'])).toBe(err.retry_after_seconds);
    for (let i = 2; i <= 5; i++) {
      await ageCode(email, 'signup', 61);
      expect((await start({ email })).status).toBe(202);
    }
    await ageCode(email, 'signup', 61);
    const sixth = await start({ email });
    expect(expectError(sixth, 429, 'rate_limited').retry_after_seconds).toBeGreaterThan(60);
    expect(await mailsTo(email)).toHaveLength(5);
  }, 60_000);

  test('20 starts for one address fired together: one mail, the rest 429 — for sign-up, and for recovery and reset alike with or without an account', async () => {
    const fire = (path: string, email: string) => Promise.all(Array.from({ length: 20 }, () => gateway().post(path).send({ email })));
    const once = async (path: string, email: string, mails: number) => {
      const answers = await fire(path, email);
      expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 202)) expect(expectError(a, 429, 'rate_limited').retry_after_seconds).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 300));
      expect(await mailsTo(email)).toHaveLength(mails);
    };
    await once('/v1/signup/start', newEmail(), 1);
    const known = await signedUp();
    await once('/v1/recover/start', known.email, 2); // the sign-up code, then one recovery code
    await once('/v1/recover/start', newEmail(), 0);
    await once('/v1/auth/password/reset/start', newEmail(), 0);
  }, 60_000);

  test('with the form, a pending organisation holds the handle; verify activates it with the person as admin', async () => {
    const handle = `org-${uniq()}`.slice(0, 40).replace(/-+$/, '');
    const email = newEmail();
    const s = await start({ email, organization_name: 'Acme Rockets', handle, full_name: 'Ada' });
    expect(s.status).toBe(202);
    expect(s.body.organization).toEqual({ org_id: expect.stringMatching(/^org_/), name: 'Acme Rockets', handle, status: 'pending' });
    const lookup = await gateway().get(`/v1/handles/${handle}`);
    expect(lookup.body).toMatchObject({ handle, valid: true, available: false, reason: 'taken', suggestion: expect.any(String) });
    const other = await start({ email: newEmail(), organization_name: 'Another', handle });
    expect(expectError(other, 409, 'handle_taken').suggestion).toEqual(expect.stringContaining(handle.slice(0, 10)));
    expect(expectError(await start({ email: newEmail(), handle: 'ad--min' }), 400, 'invalid_value').reason).toBe('invalid');
    expect(expectError(await start({ email: newEmail(), handle: 'admin' }), 400, 'invalid_value').reason).toBe('reserved');

    const v = await verify({ email, code: codeIn(await newestMailTo(email)) });
    expect(v.status).toBe(201);
    expect(v.body.organization).toEqual({ org_id: s.body.organization.org_id, role: 'admin', joined_via: 'creator' });
    const w = await gateway().get(`/v1/warehouses/${v.body.warehouse_id}`).set(bearer(v.body.api_key));
    expect(w.body.bucket).toBe(`${handle}--lake`);
  });

  test('twenty verifies at once with the right code make one account', async () => {
    const email = newEmail();
    expect((await start({ email })).status).toBe(202);
    const code = codeIn(await newestMailTo(email));
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify({ email, code })));
    const created = answers.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 201)) expectError(r, 404, 'no_pending_signup');
    const pool = db();
    try {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM principals WHERE email = $1`, [email]);
      expect(rows[0].n).toBe(1);
      const orgs = await pool.query(`SELECT count(*)::int AS n FROM memberships WHERE principal_id = $1`, [created[0].body.principal_id]);
      expect(orgs.rows[0].n).toBe(1);
    } finally {
      await pool.end();
    }
  }, 90_000);

  test('a verify that stopped after the person was made (before onboarding and the key) is finished by the next, with the same person', async () => {
    const email = newEmail();
    const s = await start({ email, workspace: `ws-${uniq()}`.slice(0, 40), full_name: 'Grace' });
    expect(s.status).toBe(202);
    const code = codeIn(await newestMailTo(email));
    // What the first step commits, as a verify killed right after it would leave it: the person, with no key, organisation or catalog.
    const [pending] = await sql(`SELECT details->>'principal_id' AS id FROM email_codes WHERE email = $1 AND purpose = 'signup'`, [email]);
    await sql(`INSERT INTO principals (id, kind, email, display_name, email_verified_at) VALUES ($1, 'human', $2, 'Grace', now())`, [pending.id, email]);
    expect(await sql(`SELECT count(*)::int AS n FROM api_keys WHERE principal_id = $1`, [pending.id])).toEqual([{ n: 0 }]);

    const v = await verify({ email, code });
    expect(v.status).toBe(201);
    expect(v.body).toMatchObject({ principal_id: pending.id, api_key: expect.stringMatching(/^al_live_/), organization: { role: 'admin', joined_via: 'creator' } });
    expect(await sql(`SELECT count(*)::int AS n FROM principals WHERE email = $1`, [email])).toEqual([{ n: 1 }]);
    const lakes = await gateway().get('/v1/warehouses').set(bearer(v.body.api_key));
    expect(lakes.status).toBe(200);
    expect(JSON.stringify(lakes.body)).toContain(v.body.warehouse_id);
    // The code is spent with the key: a second verify finds nothing waiting.
    expectError(await verify({ email, code }), 404, 'no_pending_signup');
  });

  test('the development look-up of a pending code needs the bootstrap secret', async () => {
    const email = newEmail();
    expect((await start({ email })).status).toBe(202);
    const code = codeIn(await newestMailTo(email));
    expect((await identity().get(`/internal/signup-codes/${email}`)).status).toBe(401);
    const seen = await identity().get(`/internal/signup-codes/${email}`).set(bearer(stack().bootstrap_secret));
    expect(seen.status).toBe(200);
    expect(seen.body).toEqual({ email, purpose: 'signup', code });
    expect(seen.headers['cache-control']).toBe('no-store');
    expect((await gateway().get(`/internal/signup-codes/${email}`)).status).toBe(404);
  });
});

describe('GET /v1/handles/{handle}', () => {
  test('grammar, reserved words and a free handle', async () => {
    const free = `h-${uniq()}`.slice(0, 40).replace(/-+$/, '');
    expect((await gateway().get(`/v1/handles/${free}`)).body).toMatchObject({ handle: free, valid: true, available: true, reason: null, suggestion: null, pattern: expect.any(String) });
    expect((await gateway().get('/v1/handles/ab')).body).toMatchObject({ valid: false, available: false, reason: 'invalid', suggestion: expect.any(String) });
    expect((await gateway().get('/v1/handles/a--b')).body).toMatchObject({ valid: false, reason: 'double_dash' });
    expect((await gateway().get('/v1/handles/admin')).body).toMatchObject({ valid: false, reason: 'reserved' });
    expect((await gateway().get('/v1/handles/x')).body).toMatchObject({ valid: true });
  });
});

describe('POST /v1/recover/start and /verify', () => {
  test('a new key for the account; the earlier key keeps working', async () => {
    const { email, verify: first } = await signedUp();
    const s = await gateway().post('/v1/recover/start').send({ email });
    expect(s.status).toBe(202);
    expect(s.body).toEqual({ email, delivery: 'email', expires_in: 600, next: expect.any(Array) });
    const mail = await newestMailTo(email, 2);
    expect(mail.subject).toMatch(/recovery/);
    const code = codeIn(mail);
    const wrong = await gateway().post('/v1/recover/verify').send({ email, code: code === '000000' ? '111111' : '000000' });
    expect(expectError(wrong, 401, 'invalid_code').attempts_left).toBe(4);
    const v = await gateway().post('/v1/recover/verify').send({ email, code });
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ api_key: expect.stringMatching(/^al_live_/), key_id: expect.any(String), principal_id: first.principal_id });
    expect((await gateway().get('/v1/api-keys').set(bearer(v.body.api_key))).status).toBe(200);
    expect((await gateway().get('/v1/api-keys').set(bearer(first.api_key))).status).toBe(200);
    expectError(await gateway().post('/v1/recover/verify').send({ email, code }), 404, 'no_pending_recovery');
  });

  test('an address without an account: the same answer but nothing is sent', async () => {
    const email = newEmail();
    const s = await gateway().post('/v1/recover/start').send({ email });
    expect(s.status).toBe(202);
    expect(s.body).toEqual({ email, delivery: 'smtp', expires_in: 600, next: expect.any(Array) });
    await new Promise((r) => setTimeout(r, 300));
    expect(await mailsTo(email)).toHaveLength(0);
    expectError(await gateway().post('/v1/recover/verify').send({ email, code: '123456' }), 404, 'no_pending_recovery');
  });
});

// Budgets per caller address (issue 27): the mailing starts spend one budget
// per caller address, shared by the four routes, and one address holds a
// bounded number of pending handle reservations. Each test sends from a
// loopback address of its own (the gateway sees it as the caller), with the
// stack's numbers (raised in global-setup.ts, read back with loadConfig()).
describe('budgets per caller address', () => {
  const from = (address: string, path: string, body: Record<string, unknown>) => postJsonFrom(address, `${stack().base_url}${path}`, body);
  const handleOf = () => `h-${uniq()}`.slice(0, 40).replace(/-+$/, '');
  /** One mailing start of each kind in turn: sign-up code, password sign-up (reserves a handle), recovery, reset. */
  const mailingStart = (address: string, i: number) => {
    const email = newEmail();
    const kind = ['/v1/signup/start', '/v1/auth/signup', '/v1/recover/start', '/v1/auth/password/reset/start'][i % 4];
    const body = kind === '/v1/auth/signup' ? { email, full_name: 'Budget Person', organization_name: 'Budget Org', handle: handleOf() } : { email };
    return from(address, kind, body).then((res) => ({ kind, email, res }));
  };
  const limited = (res: AddressedAnswer) => {
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'rate_limited', retry_after_seconds: Number(res.headers['retry-after']), request_id: res.headers['x-request-id'] });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.body.error.message).toMatch(/from one address/);
  };

  test('the four mailing starts share one budget per caller address: fired together past it, exactly the budget goes ahead; another address is not held back', async () => {
    const budget = loadConfig().mailStartsPerCallerPerHour;
    const address = '127.0.0.111';
    // Spend all but ten with recovery starts for addresses without an account (they mail nothing, and count alike).
    for (let spent = 0; spent < budget - 10;) {
      const batch = Math.min(20, budget - 10 - spent);
      const answers = await Promise.all(Array.from({ length: batch }, () => from(address, '/v1/recover/start', { email: newEmail() })));
      expect(answers.map((a) => a.status)).toEqual(Array(batch).fill(202));
      spent += batch;
    }
    const fired = await Promise.all(Array.from({ length: 20 }, (_, i) => mailingStart(address, i)));
    const accepted = fired.filter((f) => f.res.status === 202);
    const refused = fired.filter((f) => f.res.status !== 202);
    expect([accepted.length, refused.length]).toEqual([10, 10]);
    for (const f of refused) limited(f.res);
    // A refused start mailed nothing (the sign-up code and the password sign-up link are mailed to anyone).
    await new Promise((r) => setTimeout(r, 300));
    for (const f of refused) expect(await mailsTo(f.email)).toHaveLength(0);
    for (const f of accepted.filter((a) => a.kind === '/v1/signup/start' || a.kind === '/v1/auth/signup')) expect(await mailsTo(f.email)).not.toHaveLength(0);
    // Each route is held back now, the reset start included (the spec's "per caller address, shared with sign-up").
    for (let i = 0; i < 4; i++) limited((await mailingStart(address, i)).res);
    // Another caller address has its own budget.
    const elsewhere = await Promise.all([0, 1, 2, 3].map((i) => mailingStart('127.0.0.112', i)));
    expect(elsewhere.map((f) => f.res.status)).toEqual([202, 202, 202, 202]);
  }, 120_000);

  test('pending handle reservations per caller address: fired together at the cap, exactly one more is made, the rest 409 limit_exceeded; a lapsed one frees its place', async () => {
    const cap = loadConfig().pendingHandlesPerCaller;
    const address = '127.0.0.113';
    // All but one place taken by reservations made earlier from this address (as sign-ups left unfinished would be).
    await sql(
      `INSERT INTO organizations (id, name, handle, status, reserved_from, reserved_until)
       SELECT 'org_seed' || md5(random()::text), 'Seed', 'seed-' || md5(random()::text), 'pending', $1, now() + interval '1 hour' FROM generate_series(1, $2)`,
      [address, cap - 1],
    );
    const signUp = (kind: 'code' | 'password', email: string, handle: string) => (kind === 'code'
      ? from(address, '/v1/signup/start', { email, organization_name: 'Capped', handle })
      : from(address, '/v1/auth/signup', { email, full_name: 'Capped Person', organization_name: 'Capped', handle }));
    const fired = await Promise.all(Array.from({ length: 20 }, (_, i) => {
      const email = newEmail();
      const handle = handleOf();
      const kind = i % 2 === 0 ? 'code' as const : 'password' as const;
      return signUp(kind, email, handle).then((res) => ({ kind, email, handle, res }));
    }));
    const made = fired.filter((f) => f.res.status === 202);
    const refused = fired.filter((f) => f.res.status !== 202);
    expect([made.length, refused.length]).toEqual([1, 19]);
    for (const f of refused) {
      expect(f.res.status).toBe(409);
      expect(f.res.body.error).toMatchObject({ code: 'limit_exceeded', limit: 'pending_handles_per_address', limit_value: cap, current: cap, request_id: f.res.headers['x-request-id'] });
    }
    expect((await sql(`SELECT count(*)::int AS n FROM organizations WHERE reserved_from = $1 AND status = 'pending'`, [address]))[0].n).toBe(cap);
    // A refused sign-up holds no handle and mailed nothing.
    const loser = refused[0];
    expect((await gateway().get(`/v1/handles/${loser.handle}`)).body).toMatchObject({ available: true });
    expect(await mailsTo(loser.email)).toHaveLength(0);
    // Another caller address is not held back.
    const elsewhere = await from('127.0.0.114', '/v1/signup/start', { email: newEmail(), organization_name: 'Elsewhere', handle: handleOf() });
    expect(elsewhere.status).toBe(202);
    // The person who got the place starts again after a minute: the same reservation, counted once.
    const winner = made[0];
    await sql(`UPDATE email_codes SET created_at = created_at - interval '61 seconds' WHERE email = $1`, [winner.email]);
    await sql(`UPDATE login_tokens SET created_at = created_at - interval '61 seconds' WHERE email = $1`, [winner.email]);
    await liftResendGate(winner.email);
    const again = await signUp(winner.kind, winner.email, winner.handle);
    expect([again.status, again.body.organization?.org_id]).toEqual([202, winner.res.body.organization.org_id]);
    // A reservation that lapsed no longer counts: one place is free again.
    await sql(`UPDATE organizations SET reserved_until = now() - interval '1 second' WHERE id = (SELECT id FROM organizations WHERE reserved_from = $1 AND handle LIKE 'seed-%' LIMIT 1)`, [address]);
    expect((await from(address, '/v1/signup/start', { email: newEmail(), organization_name: 'Freed', handle: handleOf() })).status).toBe(202);
    const full = await from(address, '/v1/signup/start', { email: newEmail(), organization_name: 'Full', handle: handleOf() });
    expect(full.body.error).toMatchObject({ code: 'limit_exceeded', limit_value: cap, current: cap });
  }, 60_000);

  test('a lapsed reservation frees its handle for the next sign-up; until then the handle is taken', async () => {
    const handle = handleOf();
    const first = await from('127.0.0.115', '/v1/auth/signup', { email: newEmail(), full_name: 'First', organization_name: 'First', handle });
    expect(first.status).toBe(202);
    const [row] = await sql(`SELECT reserved_from, reserved_until FROM organizations WHERE id = $1`, [first.body.organization.org_id]);
    expect(row.reserved_from).toBe('127.0.0.115');
    // Held for the set-password link's three days.
    expect(Math.abs(new Date(row.reserved_until).getTime() - Date.now() - 259_200_000)).toBeLessThan(60_000);
    const second = { email: newEmail(), full_name: 'Second', organization_name: 'Second', handle };
    expectError(await gateway().post('/v1/auth/signup').send(second), 409, 'handle_taken');
    await sql(`UPDATE organizations SET reserved_until = now() - interval '1 second' WHERE id = $1`, [first.body.organization.org_id]);
    expect((await gateway().get(`/v1/handles/${handle}`)).body).toMatchObject({ available: true, reason: null });
    const taken = await gateway().post('/v1/auth/signup').send(second);
    expect(taken.status).toBe(202);
    expect(taken.body.organization).toMatchObject({ handle, status: 'pending' });
    expect(taken.body.organization.org_id).not.toBe(first.body.organization.org_id);
    expect(await sql(`SELECT id FROM organizations WHERE id = $1`, [first.body.organization.org_id])).toEqual([]);
    // A sign-up by code holds its handle for the code's ten minutes.
    const byCode = await start({ email: newEmail(), organization_name: 'Coded', handle: handleOf() });
    const [coded] = await sql(`SELECT reserved_until FROM organizations WHERE id = $1`, [byCode.body.organization.org_id]);
    expect(Math.abs(new Date(coded.reserved_until).getTime() - Date.now() - 600_000)).toBeLessThan(60_000);
  });
});
