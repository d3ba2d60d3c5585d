// A deployment whose SMTP server refuses: the sign-up start answers 502
// `mail_error` and leaves nothing behind — no code, no organisation holding
// the asked handle, no account — so the same start succeeds once mail flows.
import { createServer, type Server } from 'node:net';
import pg from 'pg';
import request from 'supertest';
import { startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';

let smtp: Server;
let stateFile: string;
let state: StackState;

beforeAll(async () => {
  // An SMTP server that refuses every session in its greeting (RFC 5321: 554).
  smtp = createServer((socket) => socket.end('554 5.3.2 no mail service here\r\n'));
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.address() as { port: number }).port;
  ({ state, stateFile } = await startPrivateStack('smtp', { FLOE_LOG_LEVEL: 'warn', FLOE_DEV_MAIL: 'off', FLOE_SMTP_URL: `smtp://127.0.0.1:${port}` }));
}, 240_000);

afterAll(async () => {
  if (stateFile) await stopPrivateStack(stateFile);
  await new Promise((resolve) => smtp?.close(resolve));
}, 120_000);

test('a refused mail leaves no code, no reserved organisation and no account', async () => {
  expect(state.mail_inbox_url).toBeNull();
  const email = `refused-${Date.now()}@example.com`;
  const handle = `refused-${Date.now().toString(36)}`;
  const res = await request(state.base_url).post('/v1/signup/start').send({ email, organization_name: 'Refused Inc', handle });
  expect(res.status).toBe(502);
  expect(res.body.error).toMatchObject({ code: 'mail_error', retry_after_seconds: 5 });
  expect(res.headers['retry-after']).toBe('5');

  const pool = new pg.Pool({ connectionString: state.database_url, max: 1 });
  try {
    const count = async (sql: string, v: unknown) => (await pool.query(sql, [v])).rows[0].n as number;
    expect(await count(`SELECT count(*)::int AS n FROM email_codes WHERE email = $1`, email)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM organizations WHERE handle = $1`, handle)).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM principals WHERE email = $1`, email)).toBe(0);
  } finally {
    await pool.end();
  }
  const lookup = await request(state.base_url).get(`/v1/handles/${handle}`);
  expect(lookup.body).toMatchObject({ handle, available: true, reason: null });
  // Nothing was sent, so the 60-second rule does not hold the address back: the next start is refused by the mail server again, not by the rate limit.
  expect((await request(state.base_url).post('/v1/signup/start').send({ email })).body.error.code).toBe('mail_error');
});
