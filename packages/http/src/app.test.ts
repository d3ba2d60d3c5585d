import http from 'node:http';
import request from 'supertest';
import { z } from 'zod';
import winston from 'winston';
import { createApp, route } from './app';
import { HttpError } from './errors';
import { parse } from './validate';

const lines: Array<Record<string, unknown>> = [];
const logger = winston.createLogger({
  level: 'debug',
  transports: [new winston.transports.Console({ silent: true })],
});
logger.on('data', (info) => lines.push(info));

const Body = z.object({ name: z.string().min(2), size: z.number().int().optional(), nested: z.object({ flag: z.boolean() }).optional() });

const app = createApp({
  service: 'test',
  logger,
  bodyLimitBytes: 1000,
  formBodyPaths: /^\/form$/,
  mount: (a) => {
    route(a, '/things', {
      post: (req, res) => { res.status(201).json(parse(Body, req.body)); },
      get: (_req, res) => { res.json({ ok: true }); },
    });
    route(a, '/public', { get: (_req, res) => { res.set('Cache-Control', 'public, max-age=60').json({ ok: true }); } });
    route(a, '/teapot', { get: () => { throw new HttpError<string>(418, 'teapot', 'short and stout', { remedy: 'coffee' }, { 'X-Extra': '1' }); } });
    route(a, '/optional', { post: (req, res) => { res.json({ body: req.body ?? null }); } });
    route(a, '/form', { post: (req, res) => { res.json({ type: req.get('content-type') ?? null }); } });
    route(a, '/boom', { get: () => { throw new Error('kaboom secret detail'); } });
    route(a, '/async-boom', { get: async () => { await Promise.resolve(); throw new Error('async kaboom'); } });
  },
});

const envelope = (res: request.Response, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  return res.body.error;
};

describe('createApp', () => {
  test('an absent required field is missing_field with field; a bad one invalid_value', async () => {
    expect(envelope(await request(app).post('/things').send({}), 400, 'missing_field').field).toBe('name');
    expect(envelope(await request(app).post('/things').send({ name: 'x' }), 400, 'invalid_value').field).toBe('name');
    expect(envelope(await request(app).post('/things').send({ name: 'ok', size: 1.5 }), 400, 'invalid_value').field).toBe('size');
    expect(envelope(await request(app).post('/things').send({ name: 'ok', nested: {} }), 400, 'missing_field').field).toBe('nested.flag');
    expect((await request(app).post('/things').send({ name: 'ok' })).status).toBe(201);
  });

  test('a body that is not declared JSON is 415 unsupported_media_type, not a missing field; no body at all passes', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
      const res = await request(app).post('/things').set('Content-Type', type).send('{"name":"ok"}');
      expect([type, envelope(res, 415, 'unsupported_media_type').accepts]).toEqual([type, ['application/json']]);
    }
    // A body with no Content-Type at all is not JSON either.
    const untyped = await request(app).post('/things').send(Buffer.from('{"name":"ok"}')).unset('Content-Type');
    expect(envelope(untyped, 415, 'unsupported_media_type').message).toMatch(/no declared type/);
    // JSON with parameters and +json types are JSON; an empty body of any type, or none, passes to the route.
    expect((await request(app).post('/things').set('Content-Type', 'application/json; charset=utf-8').send('{"name":"ok"}')).status).toBe(201);
    expect((await request(app).post('/things').set('Content-Type', 'application/merge-patch+json').send('{"name":"ok"}')).status).toBe(201);
    expect((await request(app).post('/optional')).body).toEqual({ body: null });
    expect((await request(app).post('/optional').set('Content-Type', 'text/plain').send('')).status).toBe(200);
    // A path that takes forms is left to its route.
    expect((await request(app).post('/form').type('form').send('a=b')).body).toEqual({ type: 'application/x-www-form-urlencoded' });
  });

  test('a lone surrogate in a JSON string or key is 400 invalid_value naming the field; a well-formed pair passes', async () => {
    const s = (body: string) => request(app).post('/things').set('Content-Type', 'application/json').send(body);
    expect(envelope(await s('{"name":"a\\ud800b"}'), 400, 'invalid_value')).toMatchObject({ field: 'name', message: expect.stringMatching(/lone surrogate/) });
    expect(envelope(await s('{"name":"ok","nested":{"\\udfff":true}}'), 400, 'invalid_value').field).toBe('nested.\udfff');
    expect(envelope(await s('{"name":"\\udc00\\ud800"}'), 400, 'invalid_value').field).toBe('name');
    expect((await s('{"name":"smile \\ud83d\\ude00"}')).body).toEqual({ name: 'smile \ud83d\ude00' });
  });

  test('a query parameter whose name or value does not percent-decode is 400 invalid_value naming it; %25 and + are read as sent', async () => {
    // Sent byte for byte: superagent would re-encode the broken escapes under test.
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = server.address() as { port: number };
    const get = (path: string) => new Promise<{ status: number; body: any }>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path }, (res) => {
        let text = '';
        res.on('data', (c) => { text += c; });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      }).on('error', reject);
    });
    try {
      for (const [query, field] of [['a=%zz', 'a'], ['a=%E0%A4%A', 'a'], ['a=%ED%A0%80', 'a'], ['b=1&a=50%', 'a'], ['a%ff=1', 'a%ff']]) {
        const res = await get(`/things?${query}`);
        expect([query, res.status, res.body.error.code, res.body.error.field, res.body.error.message])
          .toEqual([query, 400, 'invalid_value', field, expect.stringMatching(/broken percent-escape/)]);
      }
      expect((await get('/things?prefix=%zz')).body.error).toMatchObject({ code: 'invalid_prefix', field: 'prefix' });
      expect((await get('/things?a=100%25+done&b=%C3%A9')).status).toBe(200);
    } finally {
      server.close();
    }
  });

  test('HttpError renders status, code, extras and headers', async () => {
    const res = await request(app).get('/teapot');
    expect(envelope(res, 418, 'teapot')).toEqual({ code: 'teapot', message: 'short and stout', request_id: res.headers['x-request-id'], remedy: 'coffee' });
    expect(res.headers['x-extra']).toBe('1');
  });

  test('an unexpected error is a 500 envelope without internals, logged with the request id', async () => {
    for (const path of ['/boom', '/async-boom']) {
      const res = await request(app).get(path).set('X-Request-Id', `rid-${path.slice(1)}-123`);
      const err = envelope(res, 500, 'internal_error');
      expect(JSON.stringify(err)).not.toContain('kaboom');
      expect(lines.some((l) => l.level === 'error' && l.request_id === `rid-${path.slice(1)}-123`)).toBe(true);
    }
  });

  test('unknown route 404, wrong method 405 with Allow, oversize body 413', async () => {
    envelope(await request(app).get('/nope'), 404, 'not_found');
    const r405 = await request(app).delete('/things');
    expect(envelope(r405, 405, 'method_not_allowed').allowed).toEqual(['POST', 'GET', 'HEAD']);
    expect(r405.headers.allow).toBe('POST, GET, HEAD');
    expect(envelope(await request(app).post('/things').send({ name: 'x'.repeat(2000) }), 413, 'body_too_large').limit).toBe(1000);
  });

  test('no answer may be cached unless its route says so', async () => {
    expect((await request(app).get('/things')).headers['cache-control']).toBe('no-store');
    expect((await request(app).post('/things').send({ name: 'ok' })).headers['cache-control']).toBe('no-store');
    expect((await request(app).get('/boom')).headers['cache-control']).toBe('no-store');
    expect((await request(app).get('/nope')).headers['cache-control']).toBe('no-store');
    expect((await request(app).get('/public')).headers['cache-control']).toBe('public, max-age=60');
  });

  test('each request gets a request id; a plain incoming one is kept', async () => {
    const a = await request(app).get('/things');
    expect(a.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    const b = await request(app).get('/things').set('X-Request-Id', 'abc-123-def');
    expect(b.headers['x-request-id']).toBe('abc-123-def');
  });
});
