import type { Auth } from './operation';

// The credentials the document names, as OpenAPI security schemes. An API key
// (`floe_…`, also what device login hands the CLI), a login session's access
// token and a tool host's OAuth access token are all bearer tokens; the spec
// keeps them apart by surface
// (a credential from one surface is refused on every other), so each is its
// own scheme.

export const SECURITY_SCHEMES = {
  ApiKey: {
    type: 'http', scheme: 'bearer',
    description: 'An API key (`floe_…`), made with POST /v1/api-keys or handed to the CLI by device login.',
  },
  Session: {
    type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
    description: 'A login session\'s access token (POST /v1/auth/login, renewed with POST /v1/auth/refresh).',
  },
  OAuth: {
    type: 'oauth2',
    description: 'A tool host\'s access token from Floe\'s OAuth server (authorization code with PKCE; `aud` the tool server).',
    flows: { authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', scopes: { 'catalogs:read': 'read catalogs', 'catalogs:write': 'read and write catalogs' } } },
  },
  SendKey: { type: 'http', scheme: 'bearer', description: 'A sink\'s send key: sends to that sink only.' },
  DeviceToken: { type: 'http', scheme: 'bearer', description: 'A sink device\'s token (POST /v1/sinks/{sink_id}/device-token): sends from one device.' },
} as const;

const SCHEME: Record<Exclude<Auth, 'none'>, keyof typeof SECURITY_SCHEMES> = {
  api_key: 'ApiKey', session: 'Session', oauth: 'OAuth', send_key: 'SendKey', device_token: 'DeviceToken',
};

/** An operation's `security`: any one of its credentials; `{}` when it may be called without one. */
export function securityOf(auth: Auth[]): Array<Record<string, string[]>> {
  return auth.map((a) => (a === 'none' ? {} : { [SCHEME[a]]: [] }));
}
