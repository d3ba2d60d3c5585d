import type { Express } from 'express';
import { z } from 'zod';
import { HttpError, badRequest, conflict, forbidden, parse, route, writeAudit } from '@floe/http';
import { membershipsOf, type AccessContext } from '../access/context';
import type { ControlPlaneDeps } from '../deps';
import { handleProblem } from '../domain/handles';
import { onboard, type Onboarded } from '../domain/onboard';
import { ENGINES, isEngine, type Engine } from '../domain/recipes';
import { connectionFor } from '../domain/connection';
import { resolveWarehouse } from '../resolve';

// Spec: POST /v1/signup (one-call sign-up for local stacks; the managed service
// answers 403 verification_required) and POST /v1/onboard (idempotent).

const TERMS = { version: '2026-09-01', url: '/legal/terms', privacy_url: '/legal/privacy' };

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
      const { rows } = await d.db.query(`SELECT 1 FROM principals WHERE email = $1 AND status <> 'deleted' LIMIT 1`, [body.email]);
      if (rows.length) throw conflict('already_exists', `an account for ${body.email} exists; recover its key with POST /v1/recover/start`, { field: 'email' });

      const principal = await createPrincipal(d, body.email);
      const ctx: AccessContext = { principalId: principal.principal_id, kind: 'human', email: body.email, token: false, memberships: await membershipsOf(d.db, principal.principal_id) };
      req.caller = { principalId: principal.principal_id, kind: 'human', email: body.email, via: 'api_key', keyId: principal.key_id, sessionId: null };
      const done = await onboard(d, req, ctx, { organizationName: body.workspace, projectName: body.workspace });
      await writeAudit(d.db, req, { action: 'signup.complete', orgId: done.org.org_id, targetType: 'principal', targetId: principal.principal_id, data: { email: body.email, via: 'one_call' } });
      res.status(201).json({
        api_key: principal.api_key,
        api_key_note: 'Shown once. Only a hash is kept; POST /v1/api-keys makes another.',
        principal_id: principal.principal_id,
        project_id: done.projectId,
        warehouse_id: done.warehouseId,
        organization: { org_id: done.org.org_id, role: done.org.role, joined_via: done.org.joined_via },
        connection: await connectionOrNull(d, done, body.engine as Engine),
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
      const done = await onboard(d, req, req.access!, { orgId: body.org_id, organizationName: body.organization_name, handle: body.handle });
      res.json({
        organization: done.org,
        project_id: done.projectId,
        warehouse_id: done.warehouseId,
        created: done.created,
        connection: await connectionOrNull(d, done, body.engine as Engine),
        next: nextSteps(d, done),
      });
    }],
  });
}

async function connectionOrNull(d: ControlPlaneDeps, done: Onboarded, engine: Engine) {
  const w = await resolveWarehouse(d.db, done.ctx, done.warehouseId);
  if (w.status !== 'ready') return null;
  return connectionFor(d, w, engine, null);
}

function nextSteps(d: ControlPlaneDeps, done: Onboarded): string[] {
  return [
    `GET ${d.config.baseUrl}/v1/warehouses — your catalogs, with your level on each`,
    `GET ${d.config.baseUrl}/v1/connection?warehouse=${done.warehouseId}&engine=pyiceberg — a recipe for another engine (duckdb, pyiceberg, spark, snowflake)`,
    `POST ${d.config.baseUrl}/v1/tables — create a table without an engine`,
  ];
}

async function createPrincipal(d: ControlPlaneDeps, email: string): Promise<{ principal_id: string; api_key: string; key_id: string }> {
  let res: Response;
  try {
    res = await fetch(`${d.config.services.identity}/internal/principals`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${d.config.bootstrapSecret}` },
      body: JSON.stringify({ kind: 'human', email, label: 'signup' }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw new HttpError(503, 'service_unavailable', 'the identity service is not answering; retry shortly', { retry_after_seconds: 2 }, { 'Retry-After': '2' });
  }
  if (res.status !== 201) throw new Error(`identity refused to create a principal: ${res.status} ${await res.text()}`);
  return (await res.json()) as { principal_id: string; api_key: string; key_id: string };
}

