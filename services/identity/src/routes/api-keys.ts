import type { Express } from 'express';
import { issueApiKey, apiKeysOf, revokeApiKey } from '@floe/accounts';
import { CreateApiKeyBody } from '@floe/api';
import { bumpCredentialEpoch } from '@floe/auth';
import { forbidden, notFound, parse, route, writeAudit } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { iso, keyView } from '../responses';

// Spec: API keys. Every route acts on the caller's own keys only.
export function mountApiKeys(app: Express, d: IdentityDeps): void {
  const caller = d.auth.requireCaller();

  route(app, '/v1/api-keys', {
    post: [caller, async (req, res) => {
      const body = parse(CreateApiKeyBody, req.body);
      const me = req.caller!;
      // A tool host's token record is keyless: it acts through 15-minute access tokens a person can revoke, never a lasting key.
      if (me.kind === 'mcp') throw forbidden('forbidden', 'an OAuth access token cannot mint API keys');
      const key = await issueApiKey(d.prisma, me.principalId, body.label);
      await writeAudit(d.db, req, { action: 'api_key.create', targetType: 'api_key', targetId: key.keyId, data: { label: key.label } });
      res.status(201).json({
        ...keyView(key),
        api_key: key.apiKey,
        principal_id: me.principalId,
        note: 'This is the only time the key is shown; store it now. Floe keeps only a hash.',
      });
    }],
    get: [caller, async (req, res) => {
      const keys = (await apiKeysOf(d.db, req.caller!.principalId)).map(keyView);
      res.json({ principal_id: req.caller!.principalId, keys, count: keys.length });
    }],
  });

  route(app, '/v1/api-keys/:key_id', {
    delete: [caller, async (req, res) => {
      const keyId = String(req.params.key_id);
      const result = await revokeApiKey(d.prisma, keyId, req.caller!.principalId);
      if (!result) throw notFound('api_key_not_found', `no API key ${keyId} belongs to you`);
      if (!result.alreadyRevoked) {
        await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
        await writeAudit(d.db, req, { action: 'api_key.revoke', targetType: 'api_key', targetId: keyId });
      }
      res.json({ ...keyView(result.row), revoked: true, already_revoked: result.alreadyRevoked, revoked_at: iso(result.row.revokedAt) });
    }],
  });
}
