// The development identity provider of a local stack: a real OpenID Connect
// provider (oidc-provider, from npm), as maildev is the stack's mail server.
// `npm start` and `npm test` run it like every deployable while
// config.devIdentityProvider is set (FLOE_DEV_IDP, on unless FLOE_ENV is
// production); Floe counts it as a sign-in provider (`dev`) and a trusted
// issuer. Never part of a production deployment.
//
// Its own login form signs in any login with any password: type an e-mail
// address, and the account is that address, under a subject derived from it
// (accounts.ts; `+unverified` in the local part gives an unverified address).
// A consent form follows, then the code goes back to the one client, Floe's
// sign-in, at one of its redirect URIs.
//
// Development only, as the whole provider is: `POST /dev/tokens` mints a
// bearer token of this issuer for any subject without a sign-in (dev-tokens.ts).
// Body: {sub, aud?, expires_in?, email?}; answer: {access_token, token_type: 'Bearer', expires_in}.
//
// The signing key is made once and kept in <data folder>/identity-provider/jwks.json
// (owner-only), so a restart keeps the issuer's keys and the tokens already out.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';
import { loadConfig } from '@floe/config';
import { devAccountOf, type DevAccountClaims } from './accounts';
import { devTokenMinter, InvalidRequest } from './dev-tokens';

const config = loadConfig();
const dev = config.devIdentityProvider;
if (!dev) {
  process.stderr.write('the development identity provider is off (FLOE_DEV_IDP=off, or FLOE_ENV=production): nothing to run\n');
  process.exit(1);
}
const defaultAudience = config.trustedIssuers.find((t) => t.issuer === dev.issuer)?.audiences[0] ?? config.baseUrl;
const BODY_LIMIT_BYTES = 16 * 1024;

/** The provider's RS256 signing key (private JWK with kid), made on the first start and read back after. */
async function signingKey(file: string): Promise<JWK> {
  if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { keys: JWK[] }).keys[0];
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  const key: JWK = { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: 'RS256', use: 'sig' };
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify({ keys: [key] }, null, 2)}\n`, { mode: 0o600 });
  return key;
}

const key = await signingKey(join(process.env.FLOE_DATA_DIR ?? '.data', 'identity-provider', 'jwks.json'));

/**
 * The accounts signed in since the start, by subject: findAccount's claims.
 * In memory, as the provider's sessions and grants are (its default adapter):
 * after a restart, whoever comes back signs in again.
 */
const signedIn = new Map<string, DevAccountClaims>();

const provider = new Provider(dev.issuer, {
  clients: [{
    client_id: dev.signIn.clientId,
    client_secret: dev.signIn.clientSecret,
    redirect_uris: dev.redirectUris,
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  // oidc-provider makes the account id the `sub`: the account id is the address's subject (see finishLogin).
  findAccount: (_ctx: unknown, id: string) => {
    const account = signedIn.get(id);
    return account && { accountId: account.sub, claims: () => ({ ...account }) };
  },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // Floe reads the address from the ID token, as Google puts it there; by default these claims would go to userinfo only.
  conformIdTokenClaims: false,
  // The built-in login and consent forms (finishLogin answers the login form); its consent step saves the grant
  // that loadExistingGrant (the default) finds.
  features: { devInteractions: { enabled: true } },
  jwks: { keys: [key] },
  // PKCE (S256) is checked when sent, as Floe's sign-in does, and not required of this confidential client, as with Google.
  pkce: { required: () => false },
  // A restart signs everyone out of the provider: its sessions live in memory anyway.
  cookies: { keys: [randomBytes(32).toString('base64url')] },
});
const oidc = provider.callback();
const mintDevToken = await devTokenMinter(dev.issuer, key, defaultAudience);

/**
 * Answers the login form's submission (POST /interaction/:uid at the login
 * prompt) when it is one: devInteractions' own would make the login as typed
 * the account id, which oidc-provider hands out as the `sub`; here the account
 * id is the address's subject (accounts.ts). The consent form is left to devInteractions.
 */
async function finishLogin(req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
  if (req.method !== 'POST' || !/^\/interaction\/[^/]+$/.test(new URL(req.url ?? '/', 'http://localhost').pathname)) return false;
  const interaction = await provider.interactionDetails(req, res).catch(() => null);
  if (interaction?.prompt.name !== 'login') return false;
  const login = new URLSearchParams((await readBody(req)).toString('utf8')).get('login');
  if (!login?.trim()) {
    res.writeHead(400, { 'Content-Type': 'text/plain' }).end('type an e-mail address as the login\n');
    return true;
  }
  const account = devAccountOf(login);
  signedIn.set(account.sub, account);
  await provider.interactionFinished(req, res, { login: { accountId: account.sub } }, { mergeWithLastSubmission: false });
  return true;
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT_BYTES) throw new InvalidRequest(`the body is over ${BODY_LIMIT_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const body = (await readBody(req)).toString('utf8');
  try {
    return JSON.parse(body);
  } catch {
    throw new InvalidRequest('the body is not JSON');
  }
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers }).end(JSON.stringify(body));
};

const server = http.createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path === '/healthz') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'method_not_allowed' }, { Allow: 'GET, HEAD' });
    return json(res, 200, { ok: true });
  }
  if (path === '/dev/tokens') {
    if (req.method !== 'POST') return json(res, 405, { error: 'method_not_allowed' }, { Allow: 'POST' });
    readJson(req).then(mintDevToken).then(
      (token) => json(res, 200, token),
      (err: Error) => (err instanceof InvalidRequest
        ? json(res, 400, { error: 'invalid_request', error_description: err.message })
        : json(res, 500, { error: 'server_error', error_description: err.message })),
    );
    return;
  }
  finishLogin(req, res).then(
    (answered) => (answered ? undefined : oidc(req, res)),
    (err: Error) => res.writeHead(err instanceof InvalidRequest ? 400 : 500, { 'Content-Type': 'text/plain' }).end(`${err.message}\n`),
  );
});
await new Promise<void>((resolve) => server.listen(dev.port, '127.0.0.1', resolve));
process.stdout.write(`development identity provider: ${dev.issuer} (any address signs in; ${dev.issuer}/.well-known/openid-configuration)\n`);

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
