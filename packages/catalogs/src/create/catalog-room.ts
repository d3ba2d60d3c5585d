import type { Db } from '@floe/db';
import { effectiveLimits, type Limits } from '@floe/db/limits';
import { limitExceeded } from '@floe/http';
import { countedInProject, countedInScope } from './creation-records';

/**
 * Whether one more live catalog fits: the project's `warehouses_per_project`
 * and the organisation's `warehouses` (outside an organisation, the owner's),
 * else 409 `limit_exceeded` naming the limit. Creation and restore both ask,
 * inside the transaction that holds the scope's creation lock, so 20 at once
 * never pass one limit together. Returns the scope's limits it read, for the
 * caller's other checks.
 */
export async function requireCatalogRoom(tx: Db, at: { projectId: string; orgId: string | null; ownerId: string | null }, except: string | null = null): Promise<Limits> {
  const { limits } = await effectiveLimits(tx, at.orgId);
  const inProject = await countedInProject(tx, at.projectId, except);
  if (inProject >= limits.warehouses_per_project) {
    throw limitExceeded(`a project holds at most ${limits.warehouses_per_project} catalogs`, {
      limit: 'warehouses_per_project', limit_value: limits.warehouses_per_project, current: inProject,
    });
  }
  const inScope = await countedInScope(tx, at, except);
  if (inScope >= limits.warehouses) {
    throw limitExceeded(`${at.orgId ? 'an organisation' : 'an account'} holds at most ${limits.warehouses} catalogs`, {
      limit: 'warehouses', limit_value: limits.warehouses, current: inScope,
    });
  }
  return limits;
}
