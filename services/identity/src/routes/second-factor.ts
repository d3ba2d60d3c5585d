import type { Express, NextFunction, Request, Response } from 'express';
import { LoginSecondStepBody, ReauthBody, SecondFactorProofBody, TotpConfirmBody, TotpStartBody } from '@floe/api';
import { requireSignedInRecently } from '@floe/accounts';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { confirmEnrolmentByToken, finishLoginWithSecondFactor, startEnrolmentByToken } from '../domain/login-second-step';
import { reauthenticate, requireLoginSession } from '../domain/reauth';
import { confirmTotpEnrolment, disableSecondFactor, regenerateBackupCodes, secondFactorStatus, startTotpEnrolment } from '../domain/second-factor';

// Spec: Authentication 7 and 8 — the second factor, the login's second step
// and reauthentication (Floe's shapes: packages/api resources/second-factor.ts).
// Answers that carry a secret, a backup code or a session are `no-store`.

/** The guards of routes only a person's login session calls: `session` (403 session_required, not_a_person) and `recent` (401 reauth_required). */
export function loginSessionGuards(d: IdentityDeps): { session: Handler[]; recent: Handler } {
  const caller = d.auth.requireCaller();
  return {
    session: [caller, (req, _res, next) => { requireLoginSession(req.caller!); next(); }],
    /** Authentication 7: changing a factor wants a sign-in within 10 minutes. */
    recent: (req, _res, next) => { requireSignedInRecently(d.prisma, req.caller!.sessionId).then(() => next(), next); },
  };
}

export function mountSecondFactor(app: Express, d: IdentityDeps): void {
  const caller = d.auth.requireCaller();
  const { session, recent } = loginSessionGuards(d);
  /** Enrolment takes either a login session or the enrol_token of a login that asked for one. */
  const enrolling = (req: Request) => !req.get('authorization') && typeof req.body?.enrol_token === 'string';

  route(app, '/v1/auth/mfa', {
    get: [...session, async (req, res) => {
      res.json(await secondFactorStatus(d, req.caller!.principalId));
    }],
  });
  // Each first handler takes an enrolment by token and answers; a request without one goes on to the session's guards.
  route(app, '/v1/auth/mfa/totp/start', {
    post: [async (req, res, next) => {
      const b = parse(TotpStartBody, req.body ?? {});
      res.set('Cache-Control', 'no-store');
      if (!b.enrol_token || !enrolling(req)) return next();
      res.json(await startEnrolmentByToken(d, b.enrol_token));
    }, ...session, recent, async (req, res) => {
      res.json(await startTotpEnrolment(d, req.caller!.principalId, req.caller!.email ?? req.caller!.principalId));
    }],
  });
  route(app, '/v1/auth/mfa/totp/confirm', {
    post: [async (req, res, next) => {
      const b = parse(TotpConfirmBody, req.body);
      res.set('Cache-Control', 'no-store');
      if (!b.enrol_token || !enrolling(req)) return next();
      res.json(await confirmEnrolmentByToken(d, b.enrol_token, b.code));
    }, ...session, async (req, res) => {
      const b = parse(TotpConfirmBody, req.body);
      res.json({ ...(await confirmTotpEnrolment(d, req.caller!.principalId, b.code)), session: null });
    }],
  });
  route(app, '/v1/auth/mfa/disable', {
    post: [...session, recent, async (req, res) => {
      const b = parse(SecondFactorProofBody, req.body ?? {});
      res.json(await disableSecondFactor(d, req.caller!.principalId, b));
    }],
  });
  route(app, '/v1/auth/mfa/backup-codes', {
    post: [...session, recent, async (req, res) => {
      const b = parse(SecondFactorProofBody, req.body ?? {});
      res.set('Cache-Control', 'no-store').json(await regenerateBackupCodes(d, req.caller!.principalId, b));
    }],
  });
  route(app, '/v1/auth/login/mfa', {
    post: async (req, res) => {
      const b = parse(LoginSecondStepBody, req.body);
      res.set('Cache-Control', 'no-store').json(await finishLoginWithSecondFactor(d, b.mfa_token, b));
    },
  });
  route(app, '/v1/auth/reauth', {
    post: [caller, async (req, res) => {
      const b = parse(ReauthBody, req.body ?? {});
      res.json(await reauthenticate(d, req.caller!, { ...b, ip: req.ip ?? null }));
    }],
  });
}

type Handler = (req: Request, res: Response, next: NextFunction) => unknown;
