import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { loadConfig } from '@floe/config';
import { createLogger } from '@floe/http';
import { buildGatewayApp } from './app';

// A service URL that lists replicas (FLOE_CONTROL_PLANE_URL=a,b): the gateway
// sends each request to the next replica in turn, and a request without a
// body that a replica refuses goes to another one.

const logger = createLogger('gateway', 'error');
const replica = (name: string) => http.createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify({ replica: name })); });
});
const a = replica('a');
const b = replica('b');
const portOf = (s: http.Server) => (s.address() as AddressInfo).port;
let refused = 0;

beforeAll(async () => {
  for (const s of [a, b]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  // A port that nothing listens on: a replica that is down.
  const gone = http.createServer();
  await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
  refused = portOf(gone);
  await new Promise((r) => gone.close(r));
});
afterAll(async () => { for (const s of [a, b]) await new Promise((r) => s.close(r)); });

const gatewayTo = (...ports: number[]) => buildGatewayApp(loadConfig({ FLOE_CONTROL_PLANE_URL: ports.map((p) => `http://127.0.0.1:${p}`).join(',') }), logger);

test('requests alternate between the replicas', async () => {
  const app = gatewayTo(portOf(a), portOf(b));
  const seen: string[] = [];
  for (let i = 0; i < 6; i += 1) seen.push((await request(app).get('/v1/usage')).body.replica);
  expect(seen.filter((r) => r === 'a')).toHaveLength(3);
  expect(seen.filter((r) => r === 'b')).toHaveLength(3);
});

test('a replica that refuses: requests without a body go to the other, and it is passed over for a moment', async () => {
  const app = gatewayTo(refused, portOf(b));
  const gets = [];
  for (let i = 0; i < 4; i += 1) gets.push(await request(app).get('/v1/usage'));
  expect(gets.map((r) => [r.status, r.body.replica])).toEqual(Array(4).fill([200, 'b']));
  // The refusing replica is now passed over for a moment: a POST goes to the live one.
  const posted = await request(app).post('/v1/usage').send({ x: 1 });
  expect([posted.status, posted.body.replica]).toEqual([200, 'b']);
});

test('a request with a body that a replica refuses is 503 service_unavailable (its body is spent), never sent twice', async () => {
  const app = gatewayTo(refused, portOf(b));
  const answers = [await request(app).post('/v1/usage').send({ x: 1 }), await request(app).post('/v1/usage').send({ x: 2 })];
  expect(answers.map((r) => [r.status, r.body.replica ?? r.body.error?.code]).sort()).toEqual([[200, 'b'], [503, 'service_unavailable']]);
});

test('a single URL works as before; when it refuses the answer is 503 service_unavailable with Retry-After', async () => {
  expect((await request(gatewayTo(portOf(a))).get('/v1/usage')).body).toEqual({ replica: 'a' });
  const res = await request(gatewayTo(refused)).get('/v1/usage');
  expect([res.status, res.body.error?.code, res.headers['retry-after']]).toEqual([503, 'service_unavailable', '2']);
});
