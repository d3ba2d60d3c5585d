import type { Express } from 'express';
import { EmailSignupStartBody, EmailSignupVerifyBody, RecoverStartBody, RecoverVerifyBody } from '@floe/api';
import { notFound, parse, requireBootstrapSecret, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { startRecovery, verifyRecovery } from '../domain/recovery';
import { startSignup, verifySignup } from '../domain/signup';

// Spec: Sign-up and recovery — the e-mail code routes (the one-call
// development sign-up, POST /v1/signup, is the control plane's), and the
// development stacks' internal look at a pending code. The request schemas
// are the API description's (packages/api resources/account.ts).

export function mountSignup(app: Express, d: IdentityDeps): void {
  route(app, '/v1/signup/start', {
    post: async (req, res) => {
      const b = parse(EmailSignupStartBody, req.body);
      res.status(202).json(await startSignup(d, req, { email: b.email, workspace: b.workspace, fullName: b.full_name, organizationName: b.organization_name, handle: b.handle }));
    },
  });
  route(app, '/v1/signup/verify', {
    post: async (req, res) => {
      const b = parse(EmailSignupVerifyBody, req.body);
      res.status(201).json(await verifySignup(d, req, { email: b.email, code: b.code, acceptTerms: b.accept_terms, engine: b.engine }));
    },
  });
  route(app, '/v1/recover/start', {
    post: async (req, res) => {
      const b = parse(RecoverStartBody, req.body);
      res.status(202).json(await startRecovery(d, req, b.email));
    },
  });
  route(app, '/v1/recover/verify', {
    post: async (req, res) => {
      const b = parse(RecoverVerifyBody, req.body);
      res.json(await verifyRecovery(d, req, b));
    },
  });

  // Development and test stacks: the newest set-password or reset link token of an address.
  route(app, '/internal/login-tokens/:email', {
    get: [requireBootstrapSecret(d.config.bootstrapSecret), async (req, res) => {
      const email = String(req.params.email).toLowerCase();
      const purpose = req.query.purpose === 'reset' ? 'reset' : 'welcome';
      const token = await d.devCodes.read(email, purpose);
      if (!token) throw notFound('not_found', `no ${purpose} link is pending for ${email} on this stack`);
      res.set('Cache-Control', 'no-store').json({ email, purpose, token, url: `${d.config.baseUrl}/app/${purpose}?token=${encodeURIComponent(token)}` });
    }],
  });

  // Development and test stacks: the pending code of an address, for `delivery: log` and for tests.
  route(app, '/internal/signup-codes/:email', {
    get: [requireBootstrapSecret(d.config.bootstrapSecret), async (req, res) => {
      const email = String(req.params.email).toLowerCase();
      const purpose = req.query.purpose === 'recovery' || req.query.purpose === 'link' ? req.query.purpose : 'signup';
      const code = await d.devCodes.read(email, purpose);
      if (!code) throw notFound('not_found', `no ${purpose} code is pending for ${email} on this stack`);
      res.set('Cache-Control', 'no-store').json({ email, purpose, code });
    }],
  });
}
