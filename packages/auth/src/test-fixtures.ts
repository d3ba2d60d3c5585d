// Shared fixtures for this package's tests (not exported from index.ts): an
// identity provider as a real HTTP server on 127.0.0.1, serving an OpenID
// Connect discovery document and a key set made with jose and counting the
// requests it gets, so a test can say what was fetched and when; its tokens;
// and the 401 a promise is refused with.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { HttpError } from '@floe/http';

export const AUDIENCE = 'https://floe.test';

export interface SigningKey { kid: string; privateKey: CryptoKey; publicKey: CryptoKey }

export async function signingKey(kid = `k${randomBytes(4).toString('hex')}`): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  return { kid, privateKey, publicKey };
}

/** An identity provider on 127.0.0.1: discovery, a key set it publishes, and the paths it was asked for. */
export class TestIssuer {
  readonly requests: string[] = [];
  published: JWK[] = [];
  /** What discovery names as the issuer; the server's own URL unless a test says otherwise. */
  claimedIssuer: string | null = null;
  failWith: number | null = null;
  private server!: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.requests.push(req.url ?? '');
      if (this.failWith) return void res.writeHead(this.failWith).end();
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') return void res.end(JSON.stringify({ issuer: this.claimedIssuer ?? this.url, jwks_uri: `${this.url}/jwks` }));
      if (req.url === '/jwks') return void res.end(JSON.stringify({ keys: this.published }));
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async publish(...keys: SigningKey[]): Promise<void> {
    this.published = await Promise.all(keys.map(async (k) => ({ ...(await exportJWK(k.publicKey)), kid: k.kid, alg: 'RS256', use: 'sig' })));
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

export function issuerToken(key: SigningKey, iss: string, over: { aud?: string; exp?: number; sub?: string } = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ email: 'ada@example.com' }).setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
    .setIssuer(iss).setSubject(over.sub ?? 'subject-1').setAudience(over.aud ?? AUDIENCE).setIssuedAt(now)
    .setExpirationTime(over.exp ?? now + 300).setJti(randomBytes(8).toString('hex')).sign(key.privateKey);
}

export const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** The 401 a token is refused with, or a failure if it verified. */
export async function refusal(p: Promise<unknown>): Promise<{ status: number; code: string; message: string; challenge: string | undefined }> {
  const err = await p.then(() => null, (e: unknown) => e);
  if (!(err instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(err)}`);
  return { status: err.status, code: err.code, message: err.message, challenge: err.headers['WWW-Authenticate'] };
}
