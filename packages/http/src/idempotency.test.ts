import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import winston from 'winston';
import { applyMigrations, dropDatabase, ensureDatabase } from '@floe/db';
import { createApp, route } from './app';
import { HttpError } from './errors';
import { IdempotencyStore, idempotent } from './idempotency';

// Against the real Postgres: a throwaway database with the real migrations.
const url = `postgresql://postgres@127.0.0.1:5432/floe_test_idem_${randomBytes(4).toString('hex')}`;
let pool: pg.Pool;
let app: ReturnType<typeof createApp>;
let runs = 0;
let failNext = false;

beforeAll(async () => {
  await ensureDatabase(url);
  await applyMigrations(url);
  pool = new pg.Pool({ connectionString: url, max: 4 });
  // An idle client whose backend goes away (the database is dropped at the end) must not
  // surface as an unhandled 'error' event charged to whichever test ran last.
  pool.on('error', () => undefined);
  const store = new IdempotencyStore(pool);
  app = createApp({
    service: 'test',
    logger: winston.createLogger({ transports: [new winston.transports.Console({ silent: true })] }),
    bodyLimitBytes: 10_000,
    mount: (a) => {
      a.use((req, _res, next) => {
        req.caller = { principalId: req.get('x-principal') ?? 'p_a', kind: 'human', email: null, via: 'api_key', keyId: null, sessionId: null };
        next();
      });
      route(a, '/v1/projects', {
        post: [idempotent(store, 'POST /v1/projects'), (req, res) => {
          runs += 1;
          if (failNext) { failNext = false; throw new HttpError(502, 'storage_error', 'store down'); }
          res.status(201).json({ project_id: `prj_${runs}`, name: req.body.name });
        }],
      });
      route(a, '/v1/warehouses', {
        post: [idempotent(store, 'POST /v1/warehouses'), (_req, res) => { res.status(201).json({ ok: true }); }],
      });
    },
  });
});

afterAll(async () => {
  // Let releases the middleware makes after a response is sent finish before the pool closes.
  await new Promise((r) => setTimeout(r, 200));
  await pool.end();
  await dropDatabase(url);
});

const post = (path: string, key: string, body: object, principal = 'p_a') =>
  request(app).post(path).set('Idempotency-Key', key).set('X-Principal', principal).send(body);

test('a replay returns the original status and body and does not run the handler again', async () => {
  const before = runs;
  const first = await post('/v1/projects', 'k-replay', { name: 'alpha' });
  const second = await post('/v1/projects', 'k-replay', { name: 'alpha' });
  expect(first.status).toBe(201);
  expect(second.status).toBe(201);
  expect(second.body).toEqual(first.body);
  expect(second.headers['idempotent-replayed']).toBe('true');
  expect(runs).toBe(before + 1);
});

test('the same key on a different endpoint is 409 idempotency_key_reused', async () => {
  await post('/v1/projects', 'k-cross', { name: 'beta' }).expect(201);
  const res = await post('/v1/warehouses', 'k-cross', { name: 'beta' });
  expect(res.status).toBe(409);
  expect(res.body.error.code).toBe('idempotency_key_reused');
});

test('the same key with a different body is 409 idempotency_key_reused', async () => {
  await post('/v1/projects', 'k-body', { name: 'gamma' }).expect(201);
  const res = await post('/v1/projects', 'k-body', { name: 'delta' });
  expect(res.status).toBe(409);
  expect(res.body.error.code).toBe('idempotency_key_reused');
});

test('a failed request releases its key, so a retry with the same key runs and succeeds', async () => {
  failNext = true;
  const failed = await post('/v1/projects', 'k-retry', { name: 'eps' });
  expect(failed.status).toBe(502);
  const retried = await post('/v1/projects', 'k-retry', { name: 'eps' });
  expect(retried.status).toBe(201);
  const replay = await post('/v1/projects', 'k-retry', { name: 'eps' });
  expect(replay.body).toEqual(retried.body);
});

test('keys are scoped to the caller', async () => {
  const a = await post('/v1/projects', 'k-shared', { name: 'zeta' }, 'p_a');
  const b = await post('/v1/projects', 'k-shared', { name: 'zeta' }, 'p_b');
  expect(b.status).toBe(201);
  expect(b.body.project_id).not.toBe(a.body.project_id);
});

test('concurrent first requests with one key run the handler once', async () => {
  const before = runs;
  const results = await Promise.all(Array.from({ length: 5 }, () => post('/v1/projects', 'k-race', { name: 'eta' })));
  const statuses = results.map((r) => r.status).sort();
  expect(runs).toBe(before + 1);
  for (const r of results) {
    if (r.status === 201) expect(r.body.name).toBe('eta');
    else {
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('creation_in_progress');
      expect(r.headers['retry-after']).toBe('5');
    }
  }
  expect(statuses).toContain(201);
});

test('without the header nothing is stored', async () => {
  const before = runs;
  await request(app).post('/v1/projects').send({ name: 'theta' }).expect(201);
  await request(app).post('/v1/projects').send({ name: 'theta' }).expect(201);
  expect(runs).toBe(before + 2);
});
