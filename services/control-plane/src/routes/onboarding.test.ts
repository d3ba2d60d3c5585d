import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { loadConfig } from '@floe/config';
import { createLogger } from '@floe/http';
import { buildControlPlaneApp } from '../app';
import { closeDeps, createDeps } from '../deps';

// The managed service has no one-call sign-up: POST /v1/signup answers 403
// verification_required before anything is read or created.
test('with open sign-up off, POST /v1/signup is 403 verification_required', async () => {
  const config = loadConfig({ ...process.env, FLOE_ENV: 'production', FLOE_BOOTSTRAP_SECRET: 'a-bootstrap-secret-for-this-test', FLOE_DATA_KEYS: `test:${randomBytes(32).toString('base64')}` });
  expect(config.openSignup).toBe(false);
  const deps = createDeps(config, createLogger('control-plane', 'error'));
  try {
    const res = await request(buildControlPlaneApp(deps)).post('/v1/signup').send({ email: 'a@example.com', workspace: 'w', accept_terms: true });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'verification_required', request_id: res.headers['x-request-id'] });
  } finally {
    await closeDeps(deps);
  }
});
