import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { loadConfig } from '@floe/config';
import { createLogger } from '@floe/http';
import { buildControlPlaneApp } from '../app';
import { closeDeps, createDeps } from '../deps';

// With sinks switched off for the deployment, the sink routes answer 404
// not_found before any credential is looked at, and the roller's worklist is empty.
test('FLOE_SINKS=off: sink routes are 404 not_found, the worklist is empty', async () => {
  const bootstrap = 'a-bootstrap-secret-for-this-test';
  const config = loadConfig({ ...process.env, FLOE_SINKS: 'off', FLOE_BOOTSTRAP_SECRET: bootstrap, FLOE_DATA_KEYS: `test:${randomBytes(32).toString('base64')}` });
  const deps = createDeps(config, createLogger('control-plane', 'error'));
  try {
    const app = buildControlPlaneApp(deps);
    for (const [method, path] of [['post', '/v1/sinks'], ['get', '/v1/sinks'], ['get', '/v1/sinks/snk_1'], ['delete', '/v1/sinks/snk_1']] as const) {
      const res = await request(app)[method](path);
      expect([path, res.status, res.body.error.code]).toEqual([path, 404, 'not_found']);
    }
    const work = await request(app).get('/internal/sinks').set('Authorization', `Bearer ${bootstrap}`);
    expect(work.body).toMatchObject({ sinks: [], count: 0 });
  } finally {
    await closeDeps(deps);
  }
});
