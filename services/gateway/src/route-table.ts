// Which deployable answers which public path. Matching is by whole path
// segments, so `/v1/table` does not swallow `/v1/tables/...` by accident; an
// entry starting with `=` matches that path only.

export type Upstream = 'identity' | 'control-plane' | 'ingest' | 'mcp';

const TABLE: Array<[string, Upstream]> = [
  // identity: health and identity, keys, sign-in, OAuth, terms, account
  ['/healthz', 'identity'],
  // The MCP tool server's resource metadata (RFC 9728) before identity's /.well-known: the one document there that is not identity's.
  ['/.well-known/oauth-protected-resource', 'mcp'],
  ['/.well-known', 'identity'],
  ['/jwks.json', 'identity'],
  ['/oauth', 'identity'],
  ['/v1/tokens', 'identity'],
  ['/v1/api-keys', 'identity'],
  ['/v1/auth', 'identity'],
  ['/v1/oauth', 'identity'],
  ['/v1/config/formats', 'identity'],
  // The one-call sign-up makes an organisation, project and catalog: the control
  // plane's; the e-mail code routes beneath it are identity's.
  ['=/v1/signup', 'control-plane'],
  ['/v1/signup', 'identity'],
  ['/v1/recover', 'identity'],
  ['/v1/terms', 'identity'],
  ['/v1/me', 'identity'],
  // control plane: organisations, projects, catalogs, tables, sinks, usage, audit, operator
  ['/v1/onboard', 'control-plane'],
  // Handles belong to organisations.
  ['/v1/handles', 'control-plane'],
  ['/v1/orgs', 'control-plane'],
  ['/v1/projects', 'control-plane'],
  ['/v1/warehouses', 'control-plane'],
  ['/v1/namespaces', 'control-plane'],
  ['/v1/namespace', 'control-plane'],
  ['/v1/tables', 'control-plane'],
  ['/v1/table', 'control-plane'],
  ['/v1/credentials', 'control-plane'],
  ['/v1/connection', 'control-plane'],
  ['/v1/sinks', 'control-plane'],
  ['/v1/usage', 'control-plane'],
  ['/v1/audit', 'control-plane'],
  ['/v1/admin', 'control-plane'],
  ['/v1/query', 'control-plane'],
  ['/v1/object', 'control-plane'],
  ['/v1/indexes', 'control-plane'],
  ['/v1/public', 'control-plane'],
  // The MCP tool server (Streamable HTTP) at FLOE_MCP_URL's default path.
  ['/mcp', 'mcp'],
];

/** The sink send route, `POST /v1/sinks/{sink_id}`: the ingest gateway's; every other sink route is the control plane's. */
export function isSendRoute(method: string, path: string): boolean {
  return method === 'POST' && /^\/v1\/sinks\/[^/]+\/?$/.test(path);
}

export function upstreamFor(path: string, method = 'GET'): Upstream | null {
  if (isSendRoute(method, path)) return 'ingest';
  for (const [prefix, upstream] of TABLE) {
    if (prefix.startsWith('=')) {
      if (path === prefix.slice(1) || path === `${prefix.slice(1)}/`) return upstream;
      continue;
    }
    if (path === prefix || path.startsWith(`${prefix}/`)) return upstream;
  }
  return null;
}

/** The operator routes: routed only when the deployment switches them on (FLOE_ADMIN_ROUTES_PUBLIC). */
export function isAdminPath(path: string): boolean {
  return path === '/v1/admin' || path.startsWith('/v1/admin/');
}

export function isInternalPath(path: string): boolean {
  return path === '/internal' || path.startsWith('/internal/');
}
