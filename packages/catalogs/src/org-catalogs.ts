import type { Db } from '@floe/db';
import type { ProjectRow } from './project-records';

// What an organisation holds of the catalogs aggregate: its projects and live
// catalogs, as onboarding and device approval read them.

/** An organisation's oldest project. */
export function firstProjectOf(db: Db, orgId: string): Promise<ProjectRow | null> {
  return db.project.findFirst({ where: { orgId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** A project by id. */
export function projectById(db: Db, id: string): Promise<ProjectRow | null> {
  return db.project.findUnique({ where: { id } });
}

/** An organisation's catalog of this name that is not being deleted (creating, provisioning or ready). */
export function liveWarehouseNamed(db: Db, orgId: string, name: string): Promise<{ id: string; projectId: string | null } | null> {
  return db.warehouse.findFirst({ where: { orgId, name, status: { in: ['creating', 'provisioning', 'ready'] } }, select: { id: true, projectId: true } });
}

/** Whether the organisation holds any catalog that is not being deleted. */
export async function holdsLiveWarehouse(db: Db, orgId: string): Promise<boolean> {
  return (await db.warehouse.count({ where: { orgId, status: { in: ['creating', 'provisioning', 'ready'] } } })) > 0;
}
