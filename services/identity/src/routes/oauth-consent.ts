import type { Express } from 'express';
import { z } from 'zod';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { decideOAuthRequest } from '../domain/oauth-decision';
import { pendingConsent } from '../domain/oauth-consent';

// Spec: GET /v1/oauth/authorize/pending and POST /v1/oauth/authorize/decision
// — the consent page reads a consent request and answers it in the person's
// login session (usual envelope).

const Lookup = z.object({
  request_id: z.string().trim().min(1).max(100),
  org_id: z.string().trim().min(1).max(200).optional(),
});

const RequestId = z.string().trim().min(1).max(100);
const Decision = z.discriminatedUnion('allow', [
  z.object({ request_id: RequestId, allow: z.literal(false) }).strict(),
  z.object({
    request_id: RequestId,
    allow: z.literal(true),
    grants: z.array(z.object({ warehouse_id: z.string().trim().min(1).max(200), level: z.enum(['read', 'write']) }).strict()).max(200),
    org_id: z.string().trim().min(1).max(200).optional(),
    role: z.enum(['member', 'admin']).default('member'),
  }).strict(),
]);

export function mountOAuthConsent(app: Express, d: IdentityDeps): void {
  route(app, '/v1/oauth/authorize/pending', {
    get: [d.auth.requireCaller(), async (req, res) => {
      const q = parse(Lookup, req.query, 'query');
      res.json(await pendingConsent(d, req, req.caller!, q.request_id, q.org_id));
    }],
  });

  route(app, '/v1/oauth/authorize/decision', {
    post: [d.auth.requireCaller(), async (req, res) => {
      const b = parse(Decision, req.body);
      const decision = b.allow
        ? { requestId: b.request_id, allow: true as const, grants: b.grants, orgId: b.org_id, role: b.role }
        : { requestId: b.request_id, allow: false as const };
      res.json(await decideOAuthRequest(d, req, req.caller!, decision));
    }],
  });
}
