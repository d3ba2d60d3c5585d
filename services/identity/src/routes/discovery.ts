import type { Express } from 'express';
import { TERMS } from '@floe/config';
import { route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { formatsDocument } from '../domain/formats';
import { createHealthCheck } from '../domain/health';

// Spec: Health and identity.

const PUBLIC_DOCUMENT = 'public, max-age=3600';

export function mountDiscovery(app: Express, d: IdentityDeps): void {
  const { baseUrl } = d.config;
  const health = createHealthCheck(d);

  route(app, '/healthz', {
    get: async (_req, res) => {
      const h = await health();
      res.status(h.ok ? 200 : 503).json(h);
    },
  });

  // Public documents: the same for everyone and seldom changed, so caches may keep them.
  route(app, '/.well-known/openid-configuration', {
    get: (_req, res) => {
      res.set('Cache-Control', PUBLIC_DOCUMENT).json({
        issuer: baseUrl,
        jwks_uri: `${baseUrl}/jwks.json`,
        token_endpoint: `${baseUrl}/v1/tokens`,
        grant_types_supported: ['client_credentials'],
        response_types_supported: ['token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        token_endpoint_auth_methods_supported: ['none'],
        claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'kind', 'email', 'sid'],
      });
    },
  });

  // A minute, so a verifier meets a rotated-in key soon after it signs.
  const jwks = async (_req: unknown, res: import('express').Response) => {
    res.set('Cache-Control', 'public, max-age=60').json(await d.signingKeys.jwks());
  };
  route(app, '/jwks.json', { get: jwks });
  route(app, '/.well-known/jwks.json', { get: jwks });

  route(app, '/v1/auth/config', {
    get: (_req, res) => {
      res.json({
        issuer: baseUrl,
        password_login: true,
        signup: true,
        signup_modes: [
          'email_code', 'password',
          ...(d.config.openSignup ? ['one_call'] : []),
        ],
        login_url: `${baseUrl}/v1/auth/login`,
        refresh_url: `${baseUrl}/v1/auth/refresh`,
        device_authorization: true,
        device_authorization_url: `${baseUrl}/v1/auth/device`,
        device_token_url: `${baseUrl}/v1/auth/device/token`,
        second_factor: { totp: true, backup_codes: true, passkeys: true, login_step_url: `${baseUrl}/v1/auth/login/mfa`, reauth_url: `${baseUrl}/v1/auth/reauth` },
        passkeys: { rp_id: d.config.webauthn.rpId, origins: d.config.webauthn.origins, passwordless_login: d.config.webauthn.passkeyLogin },
        api_keys: true,
        token_endpoint: `${baseUrl}/v1/tokens`,
        mail_delivery: d.mailer.delivery,
        trusted_issuers: d.config.trustedIssuers,
        sign_in_providers: d.config.signIn.providers.map((p) => ({ id: p.id, name: p.name, issuer: p.issuer, start_url: `${baseUrl}/v1/auth/oidc/${p.id}/start` })),
        terms: TERMS,
        note: 'Sign up with an e-mail code (POST /v1/signup/start) or a password (POST /v1/auth/signup), then log in with the password or use an API key. A command-line tool or a machine signs in with device login: POST /v1/auth/device, a person approves the code, the machine polls POST /v1/auth/device/token for its API key (`floe login` does all three).',
      });
    },
  });

  route(app, '/v1/config/formats', { get: (_req, res) => res.set('Cache-Control', PUBLIC_DOCUMENT).json(formatsDocument()) });
}
