import type { Request } from 'express';
import type { Db } from '@floe/db';
import { quotaExceeded, quotaScopeOf, writeAudit, type SqlClient } from '@floe/http';
import { scopeStoredBytes } from '@floe/catalogs';
import { effectiveLimits } from '@floe/db/limits';

/** Error rule 4: over the storage limit, creation and credential vending answer 409 quota_exceeded (reads still work); the refusal is audited. */
export async function refuseOverQuota(d: { prisma: Db; db: SqlClient }, req: Request, w: { id: string; orgId: string | null; projectOwner: string }, operation: string): Promise<void> {
  const current = await scopeStoredBytes(d.prisma, w.orgId, w.projectOwner);
  const limit = (await effectiveLimits(d.prisma, w.orgId)).limits.storage_bytes;
  if (current < limit) return;
  await writeAudit(d.db, req, { action: 'quota.reject', orgId: w.orgId, targetType: 'warehouse', targetId: w.id, data: { operation, current, limit_value: limit } });
  throw quotaExceeded('the storage limit is reached; reading still works', { current, limit_value: limit, scope: quotaScopeOf(w.orgId) });
}
