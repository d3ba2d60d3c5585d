import { z } from 'zod';
import { operations } from '../operation';
import { IsoTime, Id } from '../shapes';

// Spec: API keys. The caller's own keys: made (the secret shown once), listed
// (never a secret), revoked.

/** A key's label, as every route that makes a key takes it. */
export const ApiKeyLabel = z.string().trim().min(1).max(200).meta({ description: 'What the key is for; 1 to 200 characters.', example: 'laptop' });

export const CreateApiKeyBody = z.object({ label: ApiKeyLabel });

const ApiKeyRow = z.object({
  key_id: Id,
  label: z.string(),
  status: z.enum(['active', 'revoked']),
  created_at: IsoTime,
  last_used_at: IsoTime.nullable(),
  revoked_at: IsoTime.nullable(),
}).meta({ id: 'ApiKey' });

const KeyParams = z.object({ key_id: Id.meta({ description: 'The key\'s id (`key_…`)' }) });

export const apiKeys = {
  tag: 'API keys',
  description: 'Your own API keys: bearer credentials for scripts and the CLI. Floe keeps only a hash; a key is shown once.',
  operations: operations([
    {
      method: 'post', path: '/v1/api-keys', id: 'createApiKey', service: 'identity',
      summary: 'Make an API key (its secret is shown once)',
      auth: ['api_key', 'session', 'oauth'],
      body: CreateApiKeyBody,
      responses: {
        201: {
          description: 'The new key, with its secret this once (`Cache-Control: no-store`).',
          schema: ApiKeyRow.extend({ api_key: z.string().meta({ description: 'The secret: `floe_…`' }), principal_id: Id, note: z.string() }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'forbidden', 'rate_limited'],
    },
    {
      method: 'get', path: '/v1/api-keys', id: 'listApiKeys', service: 'identity',
      summary: 'List your API keys (never their secrets)',
      auth: ['api_key', 'session', 'oauth'],
      responses: { 200: { description: 'Your keys, newest first.', schema: z.object({ principal_id: Id, keys: z.array(ApiKeyRow), count: z.int() }) } },
      errors: [],
    },
    {
      method: 'delete', path: '/v1/api-keys/{key_id}', id: 'revokeApiKey', service: 'identity',
      summary: 'Revoke one of your API keys',
      auth: ['api_key', 'session', 'oauth'],
      params: KeyParams,
      responses: {
        200: { description: 'Revoked (at once on every replica); revoking again answers the same with `already_revoked: true`.', schema: ApiKeyRow.extend({ revoked: z.literal(true), already_revoked: z.boolean() }) },
      },
      errors: ['api_key_not_found'],
    },
  ]),
};
