import type { Express } from 'express';
import { z } from 'zod';
import { bumpCredentialEpoch } from '@floe/auth';
import { notFound, parse, requireBootstrapSecret, route, writeAudit } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { ApiKeyLabel as Label } from '../domain/api-keys';
import { createPrincipal, createPrincipalWithKey } from '../domain/principals';
import { invitationMail } from '../mail/messages';
import { iso, keyView } from '../responses';
import { revokeApiKey } from '../store/api-keys';
import { acceptTerms, credentialsOf, renamePrincipal, revokeKeysOf, suspendPrincipal } from '../store/principals';

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

// Spec: Internal routes. Reachable on the service's own port with the
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
      const { p, keysRevoked } = await d.prisma.$transaction(async (tx) => ({
        p: await suspendPrincipal(tx, id),
        keysRevoked: body.revoke_keys ? await revokeKeysOf(tx, id) : 0,
      }));
      if (!p) throw notFound('principal_not_found', `no principal ${id}`);
      await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
      res.json({ principal_id: p.principalId, kind: p.kind, status: p.status, suspended_at: iso(p.suspendedAt), keys_revoked: keysRevoked });
    },
  });

  // An agent's name is its principal's display name (the control plane renames agents through here).
  route(app, '/internal/principals/:principal_id', {
    patch: async (req, res) => {
      const body = parse(z.object({ display_name: z.string().trim().min(1).max(200) }), req.body);
      const id = String(req.params.principal_id);
      if (!(await renamePrincipal(d.prisma, id, body.display_name))) throw notFound('principal_not_found', `no principal ${id}`);
      res.json({ principal_id: id, display_name: body.display_name });
    },
  });

  // The control plane's onboarding records a person's acceptance of the Terms here (identity writes principals).
  route(app, '/internal/principals/:principal_id/terms', {
    post: async (req, res) => {
      const body = parse(z.object({ version: z.string().min(1).max(64) }), req.body);
      const id = String(req.params.principal_id);
      if (!(await credentialsOf(d.prisma, id))) throw notFound('principal_not_found', `no principal ${id}`);
      const at = await acceptTerms(d.prisma, id, body.version);
      res.json({ principal_id: id, version: body.version, accepted_at: at.toISOString() });
    },
  });

  // The control plane's invitations go out through identity's mail sender.
  route(app, '/internal/mail/invitation', {
    post: async (req, res) => {
      const b = parse(z.object({
        to: z.string().email(), org_name: z.string().min(1), org_handle: z.string().min(1), inviter: z.string().min(1),
        role: z.enum(['admin', 'member']), token: z.string().min(1), days: z.number().int().min(1),
      }), req.body);
      const delivery = await d.mailer.send(invitationMail(b.to, {
        orgName: b.org_name, orgHandle: b.org_handle, inviter: b.inviter, role: b.role, token: b.token, baseUrl: d.config.baseUrl, days: b.days,
      }));
      res.json({ delivery });
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
