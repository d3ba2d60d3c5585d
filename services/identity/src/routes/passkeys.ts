import type { Express } from 'express';
import { PasskeyFactorOptionsBody, PasskeyParams, PasskeyRegisterBody, PasskeyRenameBody, PasskeySignBody } from '@floe/api';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { takeLoginAttempt } from '../domain/login';
import { loginWithPasskey, passkeyOptionsForSecondStep } from '../domain/login-second-step';
import { deleteOwnPasskey, listPasskeys, registerPasskey, registrationOptions, renameOwnPasskey, signingOptions } from '../domain/passkeys';
import { meta } from './auth';
import { loginSessionGuards } from './second-factor';

// Spec: Authentication 8 — passkeys (Floe's shapes: packages/api
// resources/passkeys.ts). A browser's answer is WebAuthn's own JSON
// (`PublicKeyCredential.toJSON()`), checked by @simplewebauthn/server.

export function mountPasskeys(app: Express, d: IdentityDeps): void {
  const { session, recent } = loginSessionGuards(d);
  /** Passwordless ceremonies share the login's attempts per caller address. */
  const attempt = (ip: string | null) => takeLoginAttempt(d, ip);

  route(app, '/v1/auth/passkeys', {
    get: [...session, async (req, res) => {
      res.json(await listPasskeys(d, req.caller!.principalId));
    }],
    post: [...session, recent, async (req, res) => {
      const b = parse(PasskeyRegisterBody, req.body);
      res.status(201).json(await registerPasskey(d, req.caller!.principalId, b.ceremony_id, b.response, b.name));
    }],
  });
  route(app, '/v1/auth/passkeys/register/options', {
    post: [...session, recent, async (req, res) => {
      res.set('Cache-Control', 'no-store').json(await registrationOptions(d, req.caller!.principalId));
    }],
  });
  // The sign-in routes before `/:passkey_id`, whose other methods would answer their POST 405.
  route(app, '/v1/auth/passkeys/login/options', {
    post: async (req, res) => {
      await attempt(req.ip ?? null);
      res.set('Cache-Control', 'no-store').json(await signingOptions(d, 'login', null));
    },
  });
  route(app, '/v1/auth/passkeys/login', {
    post: async (req, res) => {
      const b = parse(PasskeySignBody, req.body);
      await attempt(req.ip ?? null);
      res.set('Cache-Control', 'no-store').json(await loginWithPasskey(d, b.ceremony_id, b.response, meta(req)));
    },
  });
  route(app, '/v1/auth/passkeys/:passkey_id', {
    patch: [...session, async (req, res) => {
      const { passkey_id: id } = parse(PasskeyParams, req.params);
      const b = parse(PasskeyRenameBody, req.body);
      res.json(await renameOwnPasskey(d, req.caller!.principalId, id, b.name));
    }],
    delete: [...session, recent, async (req, res) => {
      const { passkey_id: id } = parse(PasskeyParams, req.params);
      res.json(await deleteOwnPasskey(d, req.caller!.principalId, id));
    }],
  });
  route(app, '/v1/auth/login/mfa/passkey-options', {
    post: async (req, res) => {
      const b = parse(PasskeyFactorOptionsBody, req.body);
      res.set('Cache-Control', 'no-store').json(await passkeyOptionsForSecondStep(d, b.mfa_token));
    },
  });
  route(app, '/v1/auth/reauth/passkey-options', {
    post: [...session, async (req, res) => {
      res.set('Cache-Control', 'no-store').json(await signingOptions(d, 'reauth', req.caller!.principalId));
    }],
  });
}
