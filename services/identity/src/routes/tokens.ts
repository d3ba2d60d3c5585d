import type { Express } from 'express';
import { z } from 'zod';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { mintControlToken } from '../signing/mint';

const TokenRequest = z.object({ api_key: z.string().min(1) });

// POST /v1/tokens: exchange an API key for a 900 s RS256 access token.
export function mountTokens(app: Express, d: IdentityDeps): void {
  route(app, '/v1/tokens', {
    post: async (req, res) => {
      const body = parse(TokenRequest, req.body);
      const caller = await d.auth.apiKey(body.api_key, req.ip ?? 'unknown');
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
