import { randomBytes } from 'node:crypto';
import { type AccessContext, type OrgMembership, requireUnconfined } from '@floe/accounts';
import type { Request } from 'express';
import { conflict, HttpError, limitExceeded, notFound, writeAuditIn } from '@floe/http';
import type { PrismaClient } from '@floe/db';
import { effectiveLimits } from '@floe/db/limits';
import { type ProjectRow, insertProject, lockProjectScope, projectsInScope, reachableProjects } from '../project-records';

// Spec: Projects. Placement (provider, region) is fixed at creation and only
// the deployment's own is offered; names are unique in an organisation (or
// among an owner's projects outside any), and the plan bounds their number.

/**
 * The organisation the caller acts in: the named one (id or handle; 404
 * `org_not_found` outside it), the only one, or none. Belonging to several
 * without naming one is `org_required`, answered with the status the route's
 * spec gives (projects 400, device approval 409).
 */
export function chosenMembership(ctx: AccessContext, orgId: string | undefined, status: 400 | 409): OrgMembership | null {
  if (orgId !== undefined) {
    const m = ctx.memberships.find((x) => x.orgId === orgId || x.handle === orgId);
    if (!m) throw notFound('org_not_found', `no organisation ${JSON.stringify(orgId)} that you belong to`);
    return m;
  }
  if (ctx.memberships.length > 1) {
    throw new HttpError(status, 'org_required', 'you belong to several organisations; name one with org_id', {
      available: ctx.memberships.map((m) => ({ org_id: m.orgId, name: m.name, handle: m.handle })),
    });
  }
  return ctx.memberships[0] ?? null;
}

/** The organisation a new project (or an onboarding) lands in: the named one, the only one, or none. */
export function orgForCreate(ctx: AccessContext, orgId: string | undefined): string | null {
  return chosenMembership(ctx, orgId, 400)?.orgId ?? null;
}

export interface ProjectDeps {
  prisma: PrismaClient;
  config: { provider: string; region: string };
}

/**
 * Inserts a project unless the organisation (or owner) already has one of that name: 409 `already_exists`; or holds the plan's number: 409 `limit_exceeded`.
 * A confined token (a member agent, any OAuth token, a token outside an organisation) makes none: 403 `forbidden`.
 * Audited `project.create` in the same transaction.
 */
export async function createProject(d: ProjectDeps, req: Request | null, ctx: AccessContext, p: { name: string; orgId: string | null }): Promise<ProjectRow> {
  requireUnconfined(ctx, p.orgId, 'creating a project');
  return d.prisma.$transaction(async (tx) => {
    // One creator at a time per organisation (or owner), so the name check and the count hold.
    await lockProjectScope(tx, p.orgId ?? ctx.principalId);
    const existing = await projectsInScope(tx, { orgId: p.orgId, ownerId: ctx.principalId });
    const same = existing.find((x) => x.name === p.name);
    if (same) throw conflict('already_exists', `a project named ${p.name} already exists`, { project_id: same.id });
    const { limits } = await effectiveLimits(tx, p.orgId);
    if (existing.length >= limits.projects) {
      throw limitExceeded(`at most ${limits.projects} projects`, { limit: 'projects', limit_value: limits.projects, current: existing.length });
    }
    const made = await insertProject(tx, {
      id: `prj_${randomBytes(12).toString('hex')}`, name: p.name, provider: d.config.provider, region: d.config.region, orgId: p.orgId, ownerId: ctx.principalId,
    });
    await writeAuditIn(tx, req, { action: 'project.create', orgId: p.orgId, targetType: 'project', targetId: made.id, data: { name: made.name } });
    return made;
  }, { maxWait: 10_000, timeout: 15_000 });
}

/** The projects the caller reaches, oldest first. */
export function listProjects(d: { prisma: PrismaClient }, ctx: AccessContext): Promise<ProjectRow[]> {
  return reachableProjects(d.prisma, ctx);
}
