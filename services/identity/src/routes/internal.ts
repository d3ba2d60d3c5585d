import type { Express } from 'express';
import { z } from 'zod';
import { ApiKeyLabel as Label, createPrincipal, createPrincipalWithKey, revokeApiKey, suspendWithKeys } from '@floe/accounts';
import { bumpCredentialEpoch } from '@floe/auth';
import { notFound, parse, requireBootstrapSecret, route, writeAudit } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { iso, keyView } from '../responses';

const CreatePrincipal = z.object({
  kind: z.enum(['human', 'agent', 'mcp', 'operator']).default('human'),
  /** False: no API key (an OAuth token record, kind mcp: identity mints its access tokens instead). */
  with_key: z.boolean().default(true),
  email: z.string().trim().toLowerCase().email().max(320).optional(),
  display_name: z.string().trim().min(1).max(200).optional(),
  label: Label.default('first key'),
  /** The Terms version the person accepted while signing up (the one-call sign-up). */
  terms_version: z.string().min(1).max(64).optional(),
});

// Spec: Internal routes — a principal made and suspended and a key revoked,
// thin adapters over packages/accounts (the control plane calls the same
// functions in-process), and the self-test hook. Reachable on the service's own port with the
// deployment's bootstrap secret; the public gateway answers 404 for /internal/*.
export function mountInternal(app: Express, d: IdentityDeps): void {
  app.use('/internal', requireBootstrapSecret(d.config.bootstrapSecret));

  route(app, '/internal/principals', {
    post: async (req, res) => {
      const body = parse(CreatePrincipal, req.body);
      if (!body.with_key) {
        const principal = await createPrincipal(d.prisma, { kind: body.kind, email: body.email ?? null, displayName: body.display_name ?? null });
        res.status(201).json({
          principal_id: principal.principalId, kind: principal.kind, email: principal.email, display_name: principal.displayName,
          status: principal.status, created_at: iso(principal.createdAt), api_key: null, key_id: null,
        });
        return;
      }
      const { principal, key } = await createPrincipalWithKey(d.prisma, { kind: body.kind, email: body.email ?? null, displayName: body.display_name ?? null, label: body.label, termsVersion: body.terms_version });
      await writeAudit(d.db, req, {
        action: 'api_key.create', actorId: null, actorKind: 'operator', targetType: 'api_key', targetId: key.keyId,
        data: { label: key.label, principal_id: principal.principalId, via: 'internal' },
      });
      res.status(201).json({
        principal_id: principal.principalId,
        kind: principal.kind,
        email: principal.email,
        display_name: principal.displayName,
        status: principal.status,
        created_at: iso(principal.createdAt),
        api_key: key.apiKey,
        key_id: key.keyId,
      });
    },
  });

  // `revoke_keys`: the control plane's agent revocation — every key refused at once, and the agent suspended.
  route(app, '/internal/principals/:principal_id/suspend', {
    post: async (req, res) => {
      const body = parse(z.object({ revoke_keys: z.boolean().default(false) }), req.body ?? {});
      const id = String(req.params.principal_id);
      const suspended = await d.prisma.$transaction((tx) => suspendWithKeys(tx, id, body.revoke_keys));
      if (!suspended) throw notFound('principal_not_found', `no principal ${id}`);
      await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
      const p = suspended.principal;
      res.json({ principal_id: p.principalId, kind: p.kind, status: p.status, suspended_at: iso(p.suspendedAt), keys_revoked: suspended.keysRevoked });
    },
  });

  route(app, '/internal/api-keys/:key_id/revoke', {
    post: async (req, res) => {
      const keyId = String(req.params.key_id);
      const result = await revokeApiKey(d.prisma, keyId, null);
      if (!result) throw notFound('api_key_not_found', `no API key ${keyId}`);
      if (!result.alreadyRevoked) {
        await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
        await writeAudit(d.db, req, {
          action: 'api_key.revoke', actorId: null, actorKind: 'operator', targetType: 'api_key', targetId: keyId,
          data: { principal_id: result.row.principalId, via: 'internal' },
        });
      }
      res.json({ ...keyView(result.row), principal_id: result.row.principalId, revoked: true, already_revoked: result.alreadyRevoked });
    },
  });

  route(app, '/internal/selftest/error', {
    post: () => {
      throw new Error('selftest: a deliberate unhandled error');
    },
  });
}
