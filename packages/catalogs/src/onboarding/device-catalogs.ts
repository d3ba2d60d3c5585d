import type { Request } from 'express';
import { accessContextOf, type AccessContext, type Level, type Via, requirePolicyAllows } from '@floe/accounts';
import { withSessionLock } from '@floe/db/session-lock';
import { conflict, notFound } from '@floe/http';
import { holdsLiveWarehouse } from '../org-catalogs';
import { resolveWarehouse } from '../resolve';
import { visibleWarehouses, type VisibleWarehouse } from '../warehouses';
import { createCatalogAudited, firstOrNewProject, type OnboardDeps } from './onboard';
import { chosenMembership } from './projects';

// For identity's device approval and OAuth consent (spec: Device
// authorisation), in its own process: which organisation the approving person acts in,
// every catalog of it they hold read or write on, and the catalogs a machine
// asked for resolved by id or name there (nothing asked: the organisation's
// default catalog, its oldest). Levels are the control plane's
// (access/levels.ts); identity caps what it gives by `my_level`. With
// `ensureCatalog`, an organisation without a catalog first gets `demo_data`
// in its default project, so an approval always has a catalog to give. With
// `decision`, the organisation's policy is asked first (403
// `org_policy_forbids`).

export const DEVICE_FIRST_CATALOG = 'demo_data';

export type AskedLevel = Exclude<Level, 'none'>;

export interface DeviceCatalogsInput {
  principalId: string;
  orgId?: string;
  /** Catalogs by id or name, each with the level asked; empty: the default catalog at `requestedLevel`. */
  requested: Array<{ ref: string; level: AskedLevel }>;
  requestedLevel: AskedLevel;
  ensureCatalog: boolean;
  /** A decision being made (an approval, an allowed consent): refused first when the organisation's policy reserves it. */
  decision?: 'device_login' | 'oauth_consent';
}

interface Held {
  warehouse_id: string;
  name: string;
  my_level: Level;
  my_via: Via | null;
}

const held = (w: VisibleWarehouse): Held => ({ warehouse_id: w.id, name: w.name, my_level: w.access.level, my_via: w.access.via });

/** What a device approval or an OAuth consent reads of the person's catalogs. */
export type DeviceCatalogs = Awaited<ReturnType<typeof deviceCatalogs>>;

export async function deviceCatalogs(d: OnboardDeps, req: Request, input: DeviceCatalogsInput) {
  const ctx = await accessContextOf(d.prisma, input.principalId);
  if (!ctx) throw notFound('principal_not_found', `no active principal ${input.principalId}`);
  const m = chosenMembership(ctx, input.orgId, 409);
  if (!m) throw conflict('org_required', 'you belong to no organisation; a device login adds an agent to one', { available: [] });
  // Every lookup below stays inside the chosen organisation.
  const inOrg: AccessContext = { ...ctx, memberships: [m] };
  // Before anything is made (demo_data included).
  if (input.decision) await requirePolicyAllows(d.prisma, m, input.decision);

  let created = null;
  const none = !(await holdsLiveWarehouse(d.prisma, m.orgId));
  if (input.ensureCatalog) {
    // Approvals in one organisation at once make one demo_data: under the organisation's lock the later ones find it
    // made (not half-made: a catalog still being created counts as held, so the check cannot be made before the lock).
    created = await withSessionLock(d.db, `first-catalog:${m.orgId}`, async () => {
      if (await holdsLiveWarehouse(d.prisma, m.orgId)) return null;
      // The audit names the approving person as the actor.
      req.caller = { principalId: ctx.principalId, kind: ctx.kind, email: ctx.email, via: 'api_key', keyId: null, sessionId: null };
      const { project } = await firstOrNewProject(d, req, inOrg, m.orgId, m.name);
      const made = await createCatalogAudited(d, req, inOrg, project, DEVICE_FIRST_CATALOG);
      return { warehouse_id: made.warehouse.id, name: made.warehouse.name, project_id: project.id, status: made.status };
    });
  }

  const all = (await visibleWarehouses(d.prisma, inOrg)).filter((w) => w.orgId === m.orgId);
  const requested = [];
  for (const r of input.requested) requested.push({ ...held(await catalogIn(d, inOrg, m.orgId, r.ref)), level: r.level });
  // Nothing asked: the default catalog (the oldest) at the requested level.
  if (input.requested.length === 0 && all[0]) requested.push({ ...held(all[0]), level: input.requestedLevel });

  return {
    organization: { org_id: m.orgId, name: m.name, handle: m.handle, role: m.role },
    warehouses: all.filter((w) => w.access.level !== 'none').map(held),
    requested,
    created_catalog: created,
    catalog_to_create: none && !input.ensureCatalog ? DEVICE_FIRST_CATALOG : null,
  };
}

/** A catalog of the organisation by id or name (the global rule's 404 and 409); one outside it is not found. */
async function catalogIn(d: OnboardDeps, ctx: AccessContext, orgId: string, ref: string): Promise<VisibleWarehouse> {
  const w = await resolveWarehouse(d.prisma, ctx, ref);
  if (w.orgId !== orgId) {
    throw notFound('warehouse_not_found', `no warehouse with id or name ${JSON.stringify(ref)} in this organisation`, {
      remedy: 'pass a warehouse_id or a warehouse name from GET /v1/warehouses',
    });
  }
  return w;
}
