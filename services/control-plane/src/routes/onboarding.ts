import type { Express } from 'express';
import { z } from 'zod';
import { handleProblem } from '@floe/accounts';
import { TERMS } from '@floe/config';
import { badRequest, forbidden, parse, route } from '@floe/http';
import { onboard, type Onboarded, ENGINES, isEngine, type Engine, connectionOfOnboarded, requireTermsAccepted, signUpOneCall } from '@floe/catalogs';
import type { ControlPlaneDeps } from '../deps';

// Spec: POST /v1/signup (one-call sign-up for local stacks; the managed service
// answers 403 verification_required) and POST /v1/onboard (idempotent).


const EngineField = z.string().default('duckdb').refine(isEngine, { message: `one of ${ENGINES.join(', ')}` });

const Signup = z.object({
  email: z.string().trim().toLowerCase().email().max(320),
  workspace: z.string().trim().min(1).max(63),
  engine: EngineField,
  accept_terms: z.unknown().optional(),
});

const Onboard = z.object({
  engine: EngineField,
  accept_terms: z.unknown().optional(),
  organization_name: z.string().trim().min(1).max(100).optional(),
  handle: z.string().trim().toLowerCase().min(1).max(40).optional(),
  org_id: z.string().min(1).optional(),
});

export function mountOnboarding(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/signup', {
    post: async (req, res) => {
      if (!d.config.openSignup) {
        throw forbidden('verification_required', 'this deployment signs people up with an e-mail code: POST /v1/signup/start, then /v1/signup/verify');
      }
      const body = parse(Signup, req.body);
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
      const body = parse(Onboard, req.body);
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
