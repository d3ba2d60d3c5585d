import type { Express } from 'express';
import { z } from 'zod';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { pendingConsent } from '../domain/oauth-consent';

// Spec: GET /v1/oauth/authorize/pending — the consent page reads a consent
// request in the person's login session (usual envelope). The decision
// (POST /v1/oauth/authorize/decision) is not built yet (routes/unbuilt.ts).

const Lookup = z.object({
  request_id: z.string().trim().min(1).max(100),
  org_id: z.string().trim().min(1).max(200).optional(),
});

export function mountOAuthConsent(app: Express, d: IdentityDeps): void {
  route(app, '/v1/oauth/authorize/pending', {
    get: [d.auth.requireCaller(), async (req, res) => {
      const q = parse(Lookup, req.query, 'query');
      res.json(await pendingConsent(d, req.caller!, q.request_id, q.org_id));
    }],
  });
}
