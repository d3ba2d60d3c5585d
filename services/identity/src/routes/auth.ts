import type { Express, Request } from 'express';
import { AcceptTermsBody, DeleteAccountBody, LoginBody, LogoutBody, PasswordChangeBody, PasswordResetBody, PasswordResetStartBody, PasswordSignupBody, RefreshSessionBody, SetFirstPasswordBody } from '@floe/api';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { deleteAccount } from '../domain/account';
import { login } from '../domain/login';
import { changePassword, resetPassword, startReset } from '../domain/password-reset';
import { passwordSignup, setFirstPassword } from '../domain/password-signup';
import { endSession, listSessions, logout, refreshSession } from '../domain/sessions';
import { acceptTermsNow, termsFor } from '../domain/terms';

// Spec: Login and sessions (password sign-up, login, refresh, logout,
// sessions, reset and change) and the Terms routes. Every answer carrying a
// credential is `Cache-Control: no-store`. The request schemas are the API
// description's (packages/api resources/account.ts).

/** Who opens a session, for its record: the client and its address. */
export const meta = (req: Request) => ({ userAgent: req.get('user-agent')?.slice(0, 512) ?? null, ip: req.ip ?? null });

export function mountAuth(app: Express, d: IdentityDeps): void {
  const caller = d.auth.requireCaller();

  route(app, '/v1/auth/signup', {
    post: async (req, res) => {
      const b = parse(PasswordSignupBody, req.body);
      res.status(202).json(await passwordSignup(d, req, { email: b.email, fullName: b.full_name, organizationName: b.organization_name, handle: b.handle, returnTo: b.return_to ?? null }));
    },
  });
  route(app, '/v1/auth/password/set', {
    post: async (req, res) => {
      const b = parse(SetFirstPasswordBody, req.body);
      res.set('Cache-Control', 'no-store').json(await setFirstPassword(d, req, { token: b.token, password: b.password, ...meta(req) }));
    },
  });
  route(app, '/v1/auth/login', {
    post: async (req, res) => {
      const b = parse(LoginBody, req.body);
      res.set('Cache-Control', 'no-store').json(await login(d, { email: b.email, password: b.password, ...meta(req) }));
    },
  });
  route(app, '/v1/auth/refresh', {
    post: async (req, res) => {
      const b = parse(RefreshSessionBody, req.body);
      res.set('Cache-Control', 'no-store').json(await refreshSession(d, b.refresh_token));
    },
  });
  route(app, '/v1/auth/logout', {
    post: async (req, res, next) => {
      const b = parse(LogoutBody, req.body ?? {});
      if (b.refresh_token) return void res.json(await logout(d, { refreshToken: b.refresh_token }));
      // Without a refresh token: the session of the access token the call carries.
      caller(req, res, (err?: unknown) => {
        if (err) return next(err);
        logout(d, { sessionId: req.caller!.sessionId }).then((r) => res.json(r), next);
      });
    },
  });
  route(app, '/v1/auth/sessions', {
    get: [caller, async (req, res) => {
      res.json(await listSessions(d, req.caller!.principalId, req.caller!.sessionId));
    }],
  });
  route(app, '/v1/auth/sessions/:session_id', {
    delete: [caller, async (req, res) => {
      res.json(await endSession(d, req.caller!.principalId, String(req.params.session_id)));
    }],
  });
  route(app, '/v1/auth/password/reset/start', {
    post: async (req, res) => {
      const b = parse(PasswordResetStartBody, req.body);
      res.status(202).json(await startReset(d, b.email, req.ip ?? 'unknown'));
    },
  });
  route(app, '/v1/auth/password/reset', {
    post: async (req, res) => {
      const b = parse(PasswordResetBody, req.body);
      res.set('Cache-Control', 'no-store').json(await resetPassword(d, { token: b.token, password: b.password, ...meta(req) }));
    },
  });
  route(app, '/v1/auth/password/change', {
    post: [caller, async (req, res) => {
      const b = parse(PasswordChangeBody, req.body);
      res.json(await changePassword(d, req.caller!, { currentPassword: b.current_password, newPassword: b.new_password, ip: req.ip ?? null }));
    }],
  });

  route(app, '/v1/me', {
    delete: [caller, async (req, res) => {
      const b = parse(DeleteAccountBody, req.body ?? {});
      res.json(await deleteAccount(d, req, req.caller!, b.confirm));
    }],
  });

  route(app, '/v1/terms', {
    get: [caller, async (req, res) => {
      res.json(await termsFor(d.prisma, req.caller!.principalId));
    }],
  });
  route(app, '/v1/terms/accept', {
    post: [caller, async (req, res) => {
      const b = parse(AcceptTermsBody, req.body ?? {});
      res.json(await acceptTermsNow(d, req, req.caller!, b.version));
    }],
  });
}
