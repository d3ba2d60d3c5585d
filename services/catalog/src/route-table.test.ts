import express from 'express';
import { route } from '@floe/http';
import { servedEndpoints } from './route-table';
import { notBuiltYet } from './routes/unbuilt';

test('endpoints: the operations an app serves, HEAD with GET, never a 501 route, discovery and tokens left out', () => {
  const app = express();
  const ok: express.RequestHandler = (_req, res) => { res.end(); };
  route(app, '/v1/config', { get: ok });
  route(app, '/v1/oauth/tokens', { post: ok });
  route(app, '/v1/:prefix/namespaces/:namespace', { get: ok, delete: ok });
  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table/plan', { post: [ok, notBuiltYet] });
  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table/unregister', { post: ok });
  route(app, '/v1/not/in/the/document', { get: ok });
  expect(servedEndpoints(app)).toEqual([
    'GET /v1/{prefix}/namespaces/{namespace}',
    'HEAD /v1/{prefix}/namespaces/{namespace}',
    'DELETE /v1/{prefix}/namespaces/{namespace}',
    'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/unregister',
  ]);
});
