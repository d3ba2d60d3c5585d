import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import request from 'supertest';
import type { StackState } from '../../scripts/lib/stack';
import { floeRequest } from '../support/openapi';

export function stack(): StackState {
  const file = process.env.FLOE_E2E_STATE;
  if (!file) throw new Error('FLOE_E2E_STATE is unset: run through `npm test` (the e2e global setup starts the stack)');
  return JSON.parse(readFileSync(file, 'utf8')) as StackState;
}

/**
 * What a response that does not match Floe's OpenAPI document (docs/openapi.json) does: the
 * request fails, naming the operation, status and JSON pointer. With FLOE_API_CHECK=record the
 * violation is written instead, one JSON line each, to .data/api-violations/<pid>.ndjson, so one run
 * lists every mismatch (after a large change of shapes).
 */
function onApiViolation(err: Error): void {
  if (process.env.FLOE_API_CHECK !== 'record') throw err;
  const dir = join(process.cwd(), '.data', 'api-violations');
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, `${process.pid}.ndjson`), `${JSON.stringify({ test: expect.getState().currentTestName ?? null, violation: err.message })}\n`);
}

/** supertest against the public gateway; every response is checked against Floe's OpenAPI document. */
export const gateway = () => floeRequest(stack().base_url, onApiViolation);
/** supertest against the identity service's own port (internal routes). */
export const identity = () => request(stack().services.identity.url);

export interface NewPrincipal {
  principal_id: string;
  api_key: string;
  key_id: string;
  email: string | null;
}

let counter = 0;
export async function newPrincipal(kind: 'human' | 'agent' | 'operator' = 'human'): Promise<NewPrincipal> {
  counter += 1;
  const email = kind === 'human' ? `person${counter}.${process.pid}.${Date.now()}@example.com` : undefined;
  const res = await identity()
    .post('/internal/principals')
    .set('Authorization', `Bearer ${stack().bootstrap_secret}`)
    .send({ kind, email, label: 'e2e' });
  if (res.status !== 201) throw new Error(`creating a principal failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as NewPrincipal;
}

/** Asserts the spec's error envelope: status, code, and a request_id equal to the X-Request-Id header. */
export function expectError(res: request.Response, status: number, code: string): Record<string, unknown> {
  if (res.status !== status || res.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  }
  const err = res.body.error as Record<string, unknown>;
  expect(typeof err.message).toBe('string');
  expect(err.request_id).toBe(res.headers['x-request-id']);
  expect(String(err.request_id).length).toBeGreaterThanOrEqual(8);
  return err;
}

export const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });

export function db(): pg.Pool {
  return new pg.Pool({ connectionString: stack().database_url, max: 2 });
}

/** A login session whose password was typed 11 minutes ago: its next sensitive change is 401 `reauth_required` (Authentication 7). */
export async function signInGoesStale(sessionId: string): Promise<void> {
  await sql(`UPDATE sessions SET signed_in_at = now() - interval '11 minutes' WHERE id = $1`, [sessionId]);
}

/** One statement against the stack's database (a test moving a clock, or reading what an answer cannot show). */
export async function sql<T = any>(text: string, values: unknown[] = []): Promise<T[]> {
  const pool = db();
  try {
    return (await pool.query(text, values)).rows as T[];
  } finally {
    await pool.end();
  }
}

export function redis(): Redis {
  return new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
}
