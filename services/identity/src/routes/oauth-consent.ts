import type { Express } from 'express';
import { OAuthConsentDecisionBody, OAuthConsentLookupQuery } from '@floe/api';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { decideOAuthRequest } from '../domain/oauth-decision';
import { pendingConsent } from '../domain/oauth-consent';

// Spec: GET /v1/oauth/authorize/pending and POST /v1/oauth/authorize/decision
// — the consent page reads a consent request and answers it in the person's
// login session (usual envelope).

export function mountOAuthConsent(app: Express, d: IdentityDeps): void {
  route(app, '/v1/oauth/authorize/pending', {
    get: [d.auth.requireCaller(), async (req, res) => {
      const q = parse(OAuthConsentLookupQuery, req.query, 'query');
      res.json(await pendingConsent(d, req, req.caller!, q.request_id, q.org_id));
    }],
  });

  route(app, '/v1/oauth/authorize/decision', {
    post: [d.auth.requireCaller(), async (req, res) => {
      const b = parse(OAuthConsentDecisionBody, req.body);
      const decision = b.allow
        ? { requestId: b.request_id, allow: true as const, grants: b.grants, orgId: b.org_id, role: b.role }
        : { requestId: b.request_id, allow: false as const };
      res.json(await decideOAuthRequest(d, req, req.caller!, decision));
    }],
  });
}
