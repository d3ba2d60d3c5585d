import { isAdminPath, isInternalPath, upstreamFor } from './route-table';

test.each([
  ['/healthz', 'identity'],
  ['/jwks.json', 'identity'],
  ['/.well-known/jwks.json', 'identity'],
  ['/v1/tokens', 'identity'],
  ['/v1/api-keys/abc', 'identity'],
  ['/v1/table', 'control-plane'],
  ['/v1/tables', 'control-plane'],
  ['/v1/warehouses/lake/grants/p_1', 'control-plane'],
  ['/v1/signup', 'control-plane'],
  ['/v1/signup/start', 'identity'],
  ['/v1/signup/verify', 'identity'],
  ['/mcp', 'mcp'],
  ['/mcp/', 'mcp'],
  ['/.well-known/oauth-protected-resource', 'mcp'],
  ['/.well-known/oauth-protected-resource/mcp', 'mcp'],
  ['/.well-known/oauth-authorization-server', 'identity'],
  ['/.well-known/openid-configuration', 'identity'],
  ['/.well-known/oauth-protected-resourcex', 'identity'],
])('%s goes to %s', (path, upstream) => {
  expect(upstreamFor(path)).toBe(upstream);
});

test.each(['/', '/v1', '/mcpx', '/v1/tokensx', '/v1/api-keysfoo', '/jwks.jsonx', '/internal/selftest/error'])('%s has no upstream', (path) => {
  expect(upstreamFor(path)).toBeNull();
});

test('internal paths are recognised by whole segment', () => {
  expect(isInternalPath('/internal')).toBe(true);
  expect(isInternalPath('/internal/principals')).toBe(true);
  expect(isInternalPath('/internals')).toBe(false);
});

test('operator paths are recognised by whole segment', () => {
  expect(isAdminPath('/v1/admin')).toBe(true);
  expect(isAdminPath('/v1/admin/orgs/acme/limits')).toBe(true);
  expect(isAdminPath('/v1/administer')).toBe(false);
  expect(isAdminPath('/v1/usage')).toBe(false);
});

test('the send route goes to the ingest gateway; the other sink routes to the control plane', () => {
  expect(upstreamFor('/v1/sinks/snk_1', 'POST')).toBe('ingest');
  expect(upstreamFor('/v1/sinks/snk_1', 'GET')).toBe('control-plane');
  expect(upstreamFor('/v1/sinks/snk_1', 'DELETE')).toBe('control-plane');
  expect(upstreamFor('/v1/sinks', 'POST')).toBe('control-plane');
  expect(upstreamFor('/v1/sinks/snk_1/test', 'POST')).toBe('control-plane');
});
