import type { Express } from 'express';
import { OnboardBody, OneCallSignupBody, ONBOARDING_ENGINES, type SameMembers } from '@floe/api';
import { handleProblem, refuseDisposableAddress } from '@floe/accounts';
import { TERMS } from '@floe/config';
import { badRequest, forbidden, parse, route } from '@floe/http';
import { onboard, type Onboarded, type Engine, connectionOfOnboarded, requireTermsAccepted, signUpOneCall } from '@floe/catalogs';
import type { ControlPlaneDeps } from '../deps';

// Spec: POST /v1/signup (one-call sign-up for local stacks; the managed service
// answers 403 verification_required) and POST /v1/onboard (idempotent).

// The bodies' engine list (@floe/api's, which cannot import the catalogs) is the catalogs' own: either changing alone fails to compile here.
const enginesAgree: SameMembers<(typeof ONBOARDING_ENGINES)[number], Engine> = true;
void enginesAgree;

export function mountOnboarding(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/signup', {
    post: async (req, res) => {
      if (!d.config.openSignup) {
        throw forbidden('verification_required', 'this deployment signs people up with an e-mail code: POST /v1/signup/start, then /v1/signup/verify');
      }
      const body = parse(OneCallSignupBody, req.body);
      refuseDisposableAddress(body.email);
      if (body.accept_terms !== true) throw badRequest('terms_required', 'accept_terms must be exactly true', { field: 'accept_terms', terms: TERMS });
      const { principal, key, done, connection } = await signUpOneCall(d, req, body.email, body.workspace, body.engine as Engine);
      res.status(201).json({
        api_key: key.apiKey,
        api_key_note: 'Shown once. Only a hash is kept; POST /v1/api-keys makes another.',
        principal_id: principal.principalId,
        project_id: done.projectId,
        warehouse_id: done.warehouseId,
        organization: { org_id: done.org.org_id, role: done.org.role, joined_via: done.org.joined_via },
        connection,
        next: nextSteps(d, done),
        terms: { version: TERMS.version, accepted: true, url: TERMS.url },
      });
    },
  });

  route(app, '/v1/onboard', {
    post: [...d.authed, async (req, res) => {
      const body = parse(OnboardBody, req.body);
      if (body.handle !== undefined && handleProblem(body.handle)) {
        throw badRequest('invalid_value', `${body.handle} is not a valid handle`, { field: 'handle', reason: handleProblem(body.handle) });
      }
      await requireTermsAccepted(d, req.access!, body.accept_terms);
      const done = await onboard(d, req, req.access!, { orgId: body.org_id, organizationName: body.organization_name, handle: body.handle });
      res.json({
        organization: done.org,
        project_id: done.projectId,
        warehouse_id: done.warehouseId,
        created: done.created,
        connection: await connectionOfOnboarded(d, done, body.engine as Engine),
        next: nextSteps(d, done),
      });
    }],
  });
}

function nextSteps(d: ControlPlaneDeps, done: Onboarded): string[] {
  return [
    `GET ${d.config.baseUrl}/v1/warehouses — your catalogs, with your level on each`,
    `GET ${d.config.baseUrl}/v1/connection?warehouse=${done.warehouseId}&engine=pyiceberg — a recipe for another engine (duckdb, pyiceberg, spark, snowflake)`,
    `POST ${d.config.baseUrl}/v1/tables — create a table without an engine`,
  ];
}
