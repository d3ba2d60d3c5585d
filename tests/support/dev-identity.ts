import * as oidc from 'openid-client';
import { DEV_IDP_CLIENT, signInRedirectUri } from '@floe/config';
import { bearer, gateway, identity, stack } from '../e2e/helpers';

// The stack's development identity provider (infra/identity-provider), as the
// tests use it: a person signing in at its own forms, and bearer tokens it
// mints without a sign-in. Who an address signs in as is accounts.ts's rule.
export { devAccountOf, devSubjectOf } from '../../infra/identity-provider/accounts';

/** The provider's issuer on the running stack. */
export function devIssuer(): string {
  const issuer = stack().identity_provider_url;
  if (!issuer) throw new Error('this stack runs no development identity provider');
  return issuer;
}

/**
 * Floe's sign-in client at the provider: its fixed credentials and the
 * redirect URI of the stack's base URL (the provider registers one per
 * origin the pages may be opened at).
 */
export function devSignInClient(): { issuer: string; clientId: string; clientSecret: string; redirectUri: string } {
  return { issuer: devIssuer(), ...DEV_IDP_CLIENT, redirectUri: signInRedirectUri(new URL(stack().base_url).origin) };
}

/**
 * An authorization-code sign-in with PKCE, state and nonce as `email` at the
 * provider's forms, by an OpenID Connect client (openid-client) holding Floe's
 * sign-in client's credentials — what a page given an ID token by the
 * provider's own sign-in button holds: the ID token, its claims and the nonce.
 */
export async function signInAsDevClient(email: string): Promise<{ idToken: string; claims: oidc.IDToken; nonce: string }> {
  const client = devSignInClient();
  const config = await oidc.discovery(new URL(client.issuer), client.clientId, { redirect_uris: [client.redirectUri] }, oidc.ClientSecretBasic(client.clientSecret), { execute: [oidc.allowInsecureRequests] });
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: client.redirectUri, scope: 'openid email profile', state, nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  const landed = await signInAtDevProvider(url.href, email);
  if (`${landed.origin}${landed.pathname}` !== client.redirectUri) throw new Error(`the provider sent the browser to ${landed.href}, not ${client.redirectUri}`);
  const tokens = await oidc.authorizationCodeGrant(config, landed, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true });
  return { idToken: tokens.id_token!, claims: tokens.claims()!, nonce };
}

/**
 * Links the provider's account of an existing person's address to them the
 * way a person does: "Continue with" the provider, the code mailed to the
 * address (read through the stack's internal route), POST /v1/auth/oidc/link.
 */
export async function linkAtDevProvider(email: string): Promise<void> {
  const started = await gateway().post('/v1/auth/oidc/dev/start').send({});
  const back = await signInAtDevProvider(started.body.authorization_url, email);
  const asked = await gateway().post('/v1/auth/oidc/dev/callback').send({ state: back.searchParams.get('state'), code: back.searchParams.get('code'), iss: back.searchParams.get('iss') });
  if (asked.status !== 401 || asked.body.error?.code !== 'email_code_required') throw new Error(`linking ${email}: the callback answered ${asked.status} ${JSON.stringify(asked.body)}`);
  const code = await identity().get(`/internal/signup-codes/${encodeURIComponent(email)}?purpose=link`).set(bearer(stack().bootstrap_secret));
  const linked = await gateway().post('/v1/auth/oidc/link').send({ link_token: asked.body.error.link_token, code: code.body.code });
  if (linked.status !== 200) throw new Error(`linking ${email}: the link answered ${linked.status} ${JSON.stringify(linked.body)}`);
}

/** A bearer token of the provider's issuer (POST /dev/tokens); a negative expiresIn gives one already expired. */
export async function mintDevToken(opts: { sub: string; aud?: string | string[]; expiresIn?: number; email?: string }): Promise<string> {
  const res = await fetch(`${devIssuer()}/dev/tokens`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub: opts.sub, aud: opts.aud, expires_in: opts.expiresIn, email: opts.email }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token) throw new Error(`the development identity provider minted no token: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/**
 * Signs `email` in at the provider's own login form (any password) and
 * consents, starting from an authorization request, as a browser would:
 * follows the provider's redirects with its cookies until one leaves the
 * provider, and returns that address (the client's redirect URI with `code`
 * and `state`, or an `error`) without fetching it.
 */
export async function signInAtDevProvider(authorizationUrl: string, email: string): Promise<URL> {
  const provider = new URL(authorizationUrl).origin;
  const cookies = new Map<string, string>();
  let url = authorizationUrl;
  let form: URLSearchParams | undefined;
  // The login form, the consent form and their redirects take about ten requests.
  for (let step = 0; step < 20; step++) {
    const res = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { Cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}) },
      body: form?.toString(),
    });
    keepCookies(cookies, res);
    form = undefined;
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url);
      if (next.origin !== provider) return next;
      url = next.href;
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*\baction="([^"]+)"[^>]*\bmethod="post"/i.exec(html)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(html)?.[1];
    if (res.status !== 200 || !action || !prompt) {
      throw new Error(`the development identity provider answered ${res.status} with no form at ${url}: ${html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 300)}`);
    }
    url = new URL(action.replace(/&amp;/g, '&'), url).href;
    form = new URLSearchParams(prompt === 'login' ? { prompt, login: email, password: 'any password' } : { prompt });
  }
  throw new Error(`no redirect out of the development identity provider after 20 requests (last at ${url})`);
}

/** A cookie jar of one site: its paths are few and its names distinct, so name alone keys it. */
function keepCookies(jar: Map<string, string>, res: Response): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair, ...attributes] = line.split(';').map((s) => s.trim());
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) <= Date.now()));
    if (!value || expired) jar.delete(name);
    else jar.set(name, value);
  }
}
