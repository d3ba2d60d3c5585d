// `POST /dev/tokens` of the development identity provider, development only
// as the whole provider is: a bearer token of its issuer for any subject,
// without a sign-in, signed with the provider's own key (the kid its JWKS
// publishes). What a test presents as a token "from the development
// provider"; a negative expires_in gives one already expired.
import { importJWK, SignJWT, type JWK } from 'jose';

/** A request the provider answers 400 `invalid_request`. */
export class InvalidRequest extends Error {}

export interface DevToken {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}

const DEFAULT_EXPIRES_IN = 900;

/**
 * The minter of one issuer, with its signing key (a private JWK with kid)
 * and the audience a token names when the request names none. It takes
 * the JSON body {sub, aud?, expires_in?, email?}.
 */
export async function devTokenMinter(issuer: string, key: JWK, defaultAudience: string): Promise<(body: unknown) => Promise<DevToken>> {
  const signer = await importJWK(key, 'RS256');
  return async (body) => {
    // validate
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InvalidRequest('the body is a JSON object {sub, aud?, expires_in?, email?}');
    const { sub, aud, expires_in: expiresIn = DEFAULT_EXPIRES_IN, email, ...rest } = body as Record<string, unknown>;
    // A misspelt field would otherwise mint a default token the test did not ask for.
    const unknown = Object.keys(rest);
    if (unknown.length) throw new InvalidRequest(`unknown field(s): ${unknown.join(', ')}`);
    if (typeof sub !== 'string' || !sub) throw new InvalidRequest('sub: a non-empty string');
    const audOk = aud === undefined || (typeof aud === 'string' && aud !== '')
      || (Array.isArray(aud) && aud.length > 0 && aud.every((a) => typeof a === 'string' && a !== ''));
    if (!audOk) throw new InvalidRequest('aud: a non-empty string or a non-empty array of them');
    if (typeof expiresIn !== 'number' || !Number.isInteger(expiresIn)) throw new InvalidRequest('expires_in: an integer number of seconds (negative: already expired)');
    if (email !== undefined && (typeof email !== 'string' || !email)) throw new InvalidRequest('email: a non-empty string');

    // sign
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await new SignJWT(email ? { email } : {})
      .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
      .setIssuer(issuer)
      .setSubject(sub)
      .setAudience((aud as string | string[] | undefined) ?? defaultAudience)
      .setIssuedAt(now)
      .setExpirationTime(now + expiresIn)
      .sign(signer);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn };
  };
}
