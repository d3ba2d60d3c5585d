import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { loadConfig } from '@floe/config';
import { createLogger } from '@floe/http';
import { buildGatewayApp } from './app';

// The operator routes are not public by default (spec: Operator routes): the
// gateway built from the default environment answers 404 in the envelope for
// /v1/admin/*, exactly as for a path it does not know, and never forwards it;
// with FLOE_ADMIN_ROUTES_PUBLIC=true it forwards them to the control plane.

const logger = createLogger('gateway', 'error');
const reached: string[] = [];
// A stand-in control plane that records what reached it (the gateway's upstream is only an address).
const upstream = http.createServer((req, res) => {
  reached.push(`${req.method} ${req.url}`);
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ reached: req.url }));
});
let port = 0;

beforeAll(async () => {
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  port = (upstream.address() as AddressInfo).port;
});
afterAll(async () => { await new Promise((r) => upstream.close(r)); });
beforeEach(() => { reached.length = 0; });

const gatewayWith = (env: Record<string, string>) => buildGatewayApp(loadConfig({ FLOE_CONTROL_PLANE_URL: `http://127.0.0.1:${port}`, ...env }), logger);

test('by default /v1/admin/* answers 404 not_found in the envelope and never reaches the control plane', async () => {
  const app = gatewayWith({});
  for (const [method, path] of [['get', '/v1/admin/plans'], ['get', '/v1/admin/orgs/acme/limits'], ['patch', '/v1/admin/orgs/acme/limits'], ['get', '/v1/admin']] as const) {
    const res = await request(app)[method](path).set('Authorization', 'Bearer al_live_x_y');
    expect([path, res.status, res.body.error?.code]).toEqual([path, 404, 'not_found']);
    expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  }
  expect(reached).toEqual([]);
  // Other control-plane paths are still routed, and a path that merely starts with the word is not caught.
  expect((await request(app).get('/v1/usage')).body).toEqual({ reached: '/v1/usage' });
  expect((await request(app).get('/v1/adminx')).status).toBe(404);
  expect(reached).toEqual(['GET /v1/usage']);
});

test('FLOE_ADMIN_ROUTES_PUBLIC=true routes /v1/admin/* to the control plane', async () => {
  const res = await request(gatewayWith({ FLOE_ADMIN_ROUTES_PUBLIC: 'true' })).get('/v1/admin/plans');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ reached: '/v1/admin/plans' });
  expect(reached).toEqual(['GET /v1/admin/plans']);
});
