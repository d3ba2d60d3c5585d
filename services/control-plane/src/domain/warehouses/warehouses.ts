import { type AccessContext, requireLevel } from '@floe/accounts';
import { resolveProject, resolveWarehouse, placementOf, type ProjectRow, setDefaultFormatVersion, setSigningOnly, visibleWarehouses, type VisibleWarehouse, countedInProject, deletedWarehouses, type TombstoneRecord } from '@floe/catalogs';
import type { PrismaClient } from '@floe/db';
import { bumpCredentialEpoch } from '@floe/auth';
import { badRequest } from '@floe/http';
import type { Redis } from 'ioredis';
import { effectiveLimits } from '@floe/db/limits';
import { FORMAT_VERSIONS } from './plans';

// Spec: Warehouses (catalogs) — list, get, patch. Creation is
// domain/warehouse-create.ts; rotation, publishing and measuring have their own modules.

export interface WarehouseReadDeps {
  prisma: PrismaClient;
  config: { provider: string; region: string };
}

/**
 * A format version as a JSON body carries it: the number 2 or 3. A string
 * ("3") is a wrong type and refused like any other value, 400 `invalid_value`
 * (the body is JSON; only query strings arrive as text).
 */
export function parseFormatVersion(v: unknown, field = 'default_format_version'): 2 | 3 {
  if (v === 2 || v === 3) return v;
  throw badRequest('invalid_value', `${field} must be the number 2 or 3${typeof v === 'string' ? ` (a number, not the string ${JSON.stringify(v)})` : ''}`, { field, versions: FORMAT_VERSIONS });
}

export interface WarehouseListing {
  project: ProjectRow | null;
  warehouses: VisibleWarehouse[];
  /** With `include_deleted`: the caller's catalogs being deleted that restore would still take, newest deletion first; else empty. */
  deleted: TombstoneRecord[];
  /** How many more the project may hold; null when no project was asked for. */
  headroom: number | null;
  /** The plan's catalogs per project (of the project's organisation; without a project, the caller's first). */
  limit: number;
}

/**
 * The warehouses the caller sees, in one project (by id or name) or in all it
 * reaches; with `includeDeleted`, also those being deleted within their grace
 * period (who sees them: packages/catalogs deletedWarehouses).
 */
export async function listWarehouses(d: WarehouseReadDeps, ctx: AccessContext, projectIdOrName: string | null, includeDeleted = false): Promise<WarehouseListing> {
  const project = projectIdOrName ? await resolveProject(d.prisma, ctx, projectIdOrName) : null;
  const warehouses = await visibleWarehouses(d.prisma, ctx, project ? { projectId: project.id } : {});
  const deleted = includeDeleted ? await deletedWarehouses(d.prisma, ctx, { ...(project ? { projectId: project.id } : {}), restorableOnly: true }) : [];
  const { limits } = await effectiveLimits(d.prisma, project ? project.orgId : ctx.memberships[0]?.orgId ?? null);
  const headroom = project ? Math.max(0, limits.warehouses_per_project - (await countedInProject(d.prisma, project.id))) : null;
  return { project, warehouses, deleted, headroom, limit: limits.warehouses_per_project };
}

/** Where a warehouse's data lives: its project's placement (the deployment's own for a warehouse outside any project). */
export async function placementOfWarehouse(d: WarehouseReadDeps, w: { projectId: string }): Promise<{ provider: string; region: string }> {
  return (await placementOf(d.prisma, w.projectId)) ?? { provider: d.config.provider, region: d.config.region };
}

/** How engines reach a catalog's files: vended credentials (and signing when asked for), or signed requests only. */
export type StorageAccess = 'vended' | 'signing_only';
export const STORAGE_ACCESS: readonly StorageAccess[] = ['vended', 'signing_only'];

export function parseStorageAccess(v: unknown): StorageAccess {
  if (v === 'vended' || v === 'signing_only') return v;
  throw badRequest('invalid_value', 'storage_access must be "vended" or "signing_only"', { field: 'storage_access', accepts: STORAGE_ACCESS });
}

export const storageAccessOf = (w: { signingOnly: boolean }): StorageAccess => (w.signingOnly ? 'signing_only' : 'vended');

export interface SettingsChange {
  previous: { default_format_version: 2 | 3; storage_access: StorageAccess };
  /** The settings that changed, in the order PATCH names them. */
  updated: Array<'default_format_version' | 'storage_access'>;
  /** The warehouse as it now is. */
  warehouse: VisibleWarehouse;
}

/**
 * PATCH's settings: the default format version and the storage access;
 * write level. Unchanged is not an error. A change of storage access bumps
 * the credential epoch before the answer, so the catalog's cached warehouse
 * rows (packages/auth credential-cache.ts) give way on their next request.
 */
export async function changeWarehouseSettings(
  d: WarehouseReadDeps & { redis: Redis; config: { redisPrefix: string } }, ctx: AccessContext, w: VisibleWarehouse,
  next: { defaultFormatVersion?: 2 | 3; storageAccess?: StorageAccess },
): Promise<SettingsChange> {
  await requireLevel(d.prisma, w, 'write', 'changing a catalog setting');
  const previous = { default_format_version: w.defaultFormatVersion, storage_access: storageAccessOf(w) };
  const updated: SettingsChange['updated'] = [];
  if (next.defaultFormatVersion !== undefined && next.defaultFormatVersion !== previous.default_format_version) {
    await setDefaultFormatVersion(d.prisma, w.id, next.defaultFormatVersion);
    updated.push('default_format_version');
  }
  if (next.storageAccess !== undefined && await setSigningOnly(d.prisma, w.id, next.storageAccess === 'signing_only')) {
    await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
    updated.push('storage_access');
  }
  // Read again even when nothing changed here: a concurrent PATCH may have set what this one asked for.
  return { previous, updated, warehouse: await resolveWarehouse(d.prisma, ctx, w.id) };
}
