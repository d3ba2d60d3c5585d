import type { Express } from 'express';
import { IdentityParams, ProviderCallbackBody, ProviderIdTokenBody, ProviderLinkBody, ProviderParams, ProviderStartBody } from '@floe/api';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { finishProviderSignIn, linkWithEmailCode, listIdentities, signInWithIdToken, startProviderReauth, startProviderSignIn, unlinkOwnIdentity } from '../domain/provider-sign-in';
import { meta } from './auth';
import { loginSessionGuards } from './second-factor';

// Sign-in with an OpenID Connect provider (the spec's Google sign-in routes,
// for every provider the deployment configures; Floe's shapes:
// packages/api resources/provider-sign-in.ts). Answers that carry a session
// or a link token are `no-store`.

export function mountProviderSignIn(app: Express, d: IdentityDeps): void {
  const { session, recent } = loginSessionGuards(d);

  route(app, '/v1/auth/oidc/link', {
    post: async (req, res) => {
      const b = parse(ProviderLinkBody, req.body);
      res.set('Cache-Control', 'no-store').json(await linkWithEmailCode(d, req, { linkToken: b.link_token, code: b.code }, meta(req)));
    },
  });
  route(app, '/v1/auth/oidc/:provider/start', {
    post: async (req, res) => {
      const { provider } = parse(ProviderParams, req.params);
      const b = parse(ProviderStartBody, req.body ?? {});
      res.set('Cache-Control', 'no-store').json(await startProviderSignIn(d, provider, req.get('origin') ?? null, { acceptTerms: b.accept_terms === true }));
    },
  });
  route(app, '/v1/auth/oidc/:provider/callback', {
    post: async (req, res) => {
      const { provider } = parse(ProviderParams, req.params);
      const b = parse(ProviderCallbackBody, req.body);
      res.set('Cache-Control', 'no-store').json(await finishProviderSignIn(d, req, provider, b, meta(req)));
    },
  });
  route(app, '/v1/auth/oidc/:provider/id-token', {
    post: async (req, res) => {
      const { provider } = parse(ProviderParams, req.params);
      const b = parse(ProviderIdTokenBody, req.body);
      res.set('Cache-Control', 'no-store').json(await signInWithIdToken(d, req, provider, { idToken: b.id_token, nonce: b.nonce, acceptTerms: b.accept_terms === true }, meta(req)));
    },
  });
  route(app, '/v1/auth/reauth/oidc/:provider', {
    post: [...session, async (req, res) => {
      const { provider } = parse(ProviderParams, req.params);
      res.set('Cache-Control', 'no-store').json(await startProviderReauth(d, req.caller!, provider, req.get('origin') ?? null));
    }],
  });
  route(app, '/v1/auth/identities', {
    get: [...session, async (req, res) => {
      res.json(await listIdentities(d, req.caller!.principalId));
    }],
  });
  route(app, '/v1/auth/identities/:identity_id', {
    delete: [...session, recent, async (req, res) => {
      const { identity_id: id } = parse(IdentityParams, req.params);
      res.json(await unlinkOwnIdentity(d, req.caller!.principalId, id));
    }],
  });
}
