import { randomBytes } from 'node:crypto';
import type { AttemptLimit } from '@floe/auth';
import type { PrismaClient } from '@floe/db';
import { z } from 'zod';
import { insertOAuthClient, type RegisteredClient } from '../store/oauth-clients';
import { DCR_PREFIX } from './oauth-clients';
import { OAuthError, oauthRateLimited } from './oauth-server';
import { redirectKind } from './oauth-redirects';

// Spec: POST /oauth/register — the deprecated dynamic registration (RFC
// 7591), for tool hosts that cannot publish a client metadata document.
// Public clients only: no secret is issued, `token_endpoint_auth_method` is
// `none`. 20 registrations an hour per address; a deployment may switch it
// off (403 access_denied). Registrations unused for 90 days are pruned
// by identity's `oauth-prune` job (domain/oauth-prune.ts).

export const REGISTRATIONS_PER_HOUR = 20;

export interface RegisterDeps {
  prisma: PrismaClient;
  registrations: AttemptLimit;
  config: { oauth: { dynamicRegistration: boolean } };
}

const Https = z.string().max(2000).refine((s) => s.startsWith('https://') && URL.canParse(s), 'an https URL');
const Registration = z.object({
  client_name: z.string().trim().min(1).max(200).regex(/^[^\u0000-\u001f\u007f]+$/, 'printable text on one line'),
  redirect_uris: z.array(z.string().max(2000)).min(1).max(20),
  grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).min(1).default(['authorization_code', 'refresh_token'])
    .refine((g) => g.includes('authorization_code'), 'must include authorization_code'),
  response_types: z.array(z.literal('code')).min(1).default(['code']),
  token_endpoint_auth_method: z.literal('none', { message: 'public clients only: none' }).default('none'),
  client_uri: Https.optional(),
  logo_uri: Https.optional(),
  application_type: z.enum(['web', 'native']).default('web'),
  software_id: z.string().trim().min(1).max(200).optional(),
});

export async function registerClient(d: RegisterDeps, ip: string, body: unknown) {
  // authorize: the setting, then the address's budget
  if (!d.config.oauth.dynamicRegistration) {
    throw new OAuthError(403, 'access_denied', 'dynamic registration is switched off on this deployment; publish a client metadata document and use its URL as client_id');
  }
  const wait = await d.registrations.take(ip);
  if (wait !== null) throw oauthRateLimited(wait, `at most ${REGISTRATIONS_PER_HOUR} registrations an hour from one address`);

  // validate
  const parsed = Registration.safeParse(body ?? {});
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new OAuthError(400, 'invalid_client_metadata', `${i.path.join('.') || 'body'}: ${i.message}`);
  }
  for (const uri of parsed.data.redirect_uris) {
    const k = redirectKind(uri);
    if ('refused' in k) throw new OAuthError(400, 'invalid_redirect_uri', k.refused);
  }

  // act
  const metadata: RegisteredClient = parsed.data;
  const clientId = `${DCR_PREFIX}${randomBytes(16).toString('hex')}`;
  const issuedAt = await insertOAuthClient(d.prisma, { id: clientId, metadata, createdIp: ip });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(issuedAt.getTime() / 1000),
    ...metadata,
    note: 'Dynamic registration is deprecated: prefer a client metadata document (its https URL is the client_id). No secret is issued; registrations unused for 90 days are removed.',
  };
}
