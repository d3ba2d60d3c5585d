import { Writable } from 'node:stream';
import pg from 'pg';
import winston from 'winston';
import { createLogger, logFormat } from './logger';

// What a log line carries of an Error: its name, message, stack and code, as
// JSON. winston's json format alone writes `"err":{}`. A database error keeps
// nothing of the row it failed on: no detail, no parameters, no quoted values.

/** The JSON line createLogger's format writes for one call. */
function line(message: string, meta: Record<string, unknown>): Record<string, unknown> {
  let out = '';
  const logger = winston.createLogger({
    format: logFormat(),
    transports: [new winston.transports.Stream({ stream: new Writable({ write(chunk, _enc, done) { out += chunk; done(); } }) })],
  });
  logger.error(message, meta);
  return JSON.parse(out);
}

class CodedError extends Error {
  constructor(message: string, readonly code: string) {
    super(message);
    this.name = 'CodedError';
  }
}

test('an Error in the meta is logged with name, message, stack and code', () => {
  const err = new CodedError('the store went away', 'ECONNRESET');
  const out = line('unhandled error', { request_id: 'rid-1', err });
  expect(out).toMatchObject({ level: 'error', message: 'unhandled error', request_id: 'rid-1' });
  expect(out.err).toEqual({ name: 'CodedError', message: 'the store went away', code: 'ECONNRESET', stack: err.stack });
  expect(String((out.err as { stack: string }).stack)).toMatch(/^CodedError: the store went away\n\s+at /);
});

test('nested Errors and causes are serialised too; other values are unchanged', () => {
  const cause = new TypeError('bad input');
  const err = new Error('outer', { cause });
  const out = line('failed', { step: { name: 'probe', err }, errors: [cause], count: 2 });
  expect(out.step).toEqual({ name: 'probe', err: { name: 'Error', message: 'outer', stack: err.stack, cause: { name: 'TypeError', message: 'bad input', stack: cause.stack } } });
  expect(out.errors).toEqual([{ name: 'TypeError', message: 'bad input', stack: cause.stack }]);
  expect(out.count).toBe(2);
});

test('a Postgres error keeps name, code and message without the values it failed on', async () => {
  const pool = new pg.Pool({ connectionString: 'postgresql://postgres@127.0.0.1:5432/postgres', max: 1 });
  let err: unknown;
  try {
    await pool.query(`SELECT $1::uuid AS id`, ['secret-key-not-a-uuid']);
  } catch (e) {
    err = e;
  } finally {
    await pool.end();
  }
  expect(err).toBeInstanceOf(pg.DatabaseError);
  const out = line('unhandled error', { err });
  const text = JSON.stringify(out);
  expect(text).not.toContain('secret-key-not-a-uuid');
  const logged = out.err as Record<string, string>;
  expect(Object.keys(logged).sort()).toEqual(['code', 'message', 'name', 'stack']);
  expect(logged).toMatchObject({ name: 'DatabaseError', code: '22P02', message: 'invalid input syntax for type uuid: "[redacted]"' });
  expect(logged.stack.split('\n')[0]).toBe('error: invalid input syntax for type uuid: "[redacted]"');
});

test('identifiers in a Postgres message stay: they name the schema, not the data', async () => {
  const pool = new pg.Pool({ connectionString: 'postgresql://postgres@127.0.0.1:5432/postgres', max: 1 });
  let err: unknown;
  try {
    await pool.query(`SELECT no_such_column FROM pg_class`);
  } catch (e) {
    err = e;
  } finally {
    await pool.end();
  }
  expect((line('x', { err }).err as Record<string, string>).message).toBe('column "no_such_column" does not exist');
});

test('createLogger writes JSON lines with the service name and the serialised error', () => {
  let out = '';
  const logger = createLogger('svc', 'info');
  logger.clear().add(new winston.transports.Stream({ stream: new Writable({ write(chunk, _enc, done) { out += chunk; done(); } }) }));
  logger.error('boom', { err: new Error('kaboom') });
  const parsed = JSON.parse(out);
  expect(parsed).toMatchObject({ service: 'svc', level: 'error', message: 'boom', err: { name: 'Error', message: 'kaboom' } });
  expect(typeof parsed.timestamp).toBe('string');
});
