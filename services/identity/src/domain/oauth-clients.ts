import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { PrismaClient } from '@floe/db';
import { useOAuthClient } from '../store/oauth-clients';
import type { ClientSnapshot } from '../store/oauth-requests';
import { OAuthError } from './oauth-server';
import { fetchMetadataDocument, hostAllowed, MetadataRefused } from './oauth-metadata-fetch';
import { redirectKind } from './oauth-redirects';

// Spec: an OAuth client is an https URL to a client metadata document or a
// registered `dcr_...` id. A document is fetched behind the guard
// (oauth-metadata-fetch.ts), must be JSON naming its own URL as `client_id`
// and list redirect URIs the registration rules accept, and is kept 5
// minutes in Redis once it passed. Every refusal is 400 invalid_client.

const CACHE_SECONDS = 300;
export const DCR_PREFIX = 'dcr_';

export interface ClientDeps {
  prisma: PrismaClient;
  redis: Redis;
  config: { redisPrefix: string; oauth: { metadataAllowHosts: string[] } };
}

const invalidClient = (description: string) => new OAuthError(400, 'invalid_client', description);

const Https = z.string().max(2000).refine((s) => s.startsWith('https://'), 'an https URL');

/** The fields of a client metadata document Floe reads; others are ignored. */
const Document = z.object({
  client_id: z.string(),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: Https.optional(),
  logo_uri: Https.optional(),
  redirect_uris: z.array(z.string()).min(1).max(20),
  token_endpoint_auth_method: z.literal('none').optional(),
});

export async function resolveClient(d: ClientDeps, clientId: string): Promise<ClientSnapshot> {
  if (clientId.startsWith(DCR_PREFIX)) return registeredClient(d, clientId);
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw invalidClient('client_id must be an https URL of a client metadata document or a registered dcr_ id');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && hostAllowed(url, d.config.oauth.metadataAllowHosts))) {
    throw invalidClient(`the client metadata address ${clientId} is not https`);
  }
  if (url.hash || url.username || url.password) throw invalidClient('a client metadata address has no fragment and no user information');
  return documentClient(d, clientId);
}

async function registeredClient(d: ClientDeps, clientId: string): Promise<ClientSnapshot> {
  const c = /^dcr_[A-Za-z0-9]{1,64}$/.test(clientId) ? await useOAuthClient(d.prisma, clientId) : null;
  if (!c) throw invalidClient(`no client is registered as ${clientId}`);
  const host = c.client_uri ? new URL(c.client_uri).host : null;
  return {
    client_id: clientId, client_name: c.client_name, client_uri: c.client_uri ?? null, logo_uri: c.logo_uri ?? null,
    host, registration: 'dynamic', redirect_uris: c.redirect_uris,
  };
}

async function documentClient(d: ClientDeps, url: string): Promise<ClientSnapshot> {
  const key = `${d.config.redisPrefix}oauth:cimd:${createHash('sha256').update(url).digest('base64url')}`;
  const cached = await d.redis.get(key);
  if (cached) return JSON.parse(cached) as ClientSnapshot;
  const client = checkDocument(url, await fetched(url, d.config.oauth.metadataAllowHosts));
  await d.redis.set(key, JSON.stringify(client), 'EX', CACHE_SECONDS);
  return client;
}

async function fetched(url: string, allowHosts: readonly string[]): Promise<Buffer> {
  try {
    return await fetchMetadataDocument(url, allowHosts);
  } catch (err) {
    if (err instanceof MetadataRefused) throw invalidClient(err.message);
    throw err;
  }
}

/** The document as a client: JSON, naming its own URL, listing acceptable redirect URIs. */
export function checkDocument(url: string, bytes: Buffer): ClientSnapshot {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalidClient(`the client metadata document at ${url} is not JSON`);
  }
  const doc = Document.safeParse(json);
  if (!doc.success) {
    const i = doc.error.issues[0];
    throw invalidClient(`the client metadata document at ${url} is not usable: ${i.path.join('.') || 'document'}: ${i.message}`);
  }
  if (doc.data.client_id !== url) throw invalidClient(`the client metadata document at ${url} names another client_id (${doc.data.client_id.slice(0, 200)}); it must name its own URL`);
  for (const r of doc.data.redirect_uris) {
    const k = redirectKind(r);
    if ('refused' in k) throw invalidClient(`the client metadata document at ${url} lists a redirect URI Floe does not accept: ${k.refused}`);
  }
  return {
    client_id: url, client_name: doc.data.client_name ?? null, client_uri: doc.data.client_uri ?? null, logo_uri: doc.data.logo_uri ?? null,
    host: new URL(url).host, registration: 'cimd', redirect_uris: doc.data.redirect_uris,
  };
}
