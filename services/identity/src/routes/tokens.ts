import type { Express } from 'express';
import { TokenRequestBody } from '@floe/api';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { requireFactorWherePolicyAsks } from '../domain/login-second-step';
import { mintControlToken } from '../signing/mint';

// POST /v1/tokens: exchange an API key for a 900 s RS256 access token. A
// person's key is refused while an organisation of theirs requires a second
// factor they have not enrolled (the login sends them to enrol).
export function mountTokens(app: Express, d: IdentityDeps): void {
  route(app, '/v1/tokens', {
    post: async (req, res) => {
      const body = parse(TokenRequestBody, req.body);
      const caller = await d.auth.apiKey(body.api_key, req.ip ?? 'unknown');
      if (caller.kind === 'human') await requireFactorWherePolicyAsks(d, caller.principalId);
      const { token, expiresIn } = await mintControlToken(d.signingKeys, d.config.baseUrl, caller);
      res.json({
        access_token: token,
        token_type: 'Bearer',
        expires_in: expiresIn,
        principal_id: caller.principalId,
      });
    },
  });
}
