import type { Db } from '@floe/db';

// Reading the audit log (packages/http's writeAudit writes it).

export interface AuditFilter {
  principalId: string;
  /** An organisation whose every event the caller may read (an admin's), or null for the caller's own events only. */
  orgScope: string | null;
  since: Date | null;
  action: { prefix: string } | { exact: string } | null;
  limit: number;
}

/** Events newest first. */
export function auditEvents(db: Db, f: AuditFilter) {
  return db.auditEvent.findMany({
    where: {
      OR: [{ actorId: f.principalId }, ...(f.orgScope ? [{ orgId: f.orgScope }] : [])],
      ...(f.since ? { createdAt: { gte: f.since } } : {}),
      // startsWith is a LIKE that Prisma does not escape: `_` would match any character.
      ...(f.action ? { action: 'exact' in f.action ? f.action.exact : { startsWith: f.action.prefix.replace(/[\\%_]/g, '\\$&') } } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: f.limit,
  });
}
