import type { Request } from 'express';
import type { Db } from '@floe/db';
import { quotaExceeded, quotaScopeOf, writeAudit, type SqlClient } from '@floe/http';
import { scopeStoredBytes } from '../store/usage';
import { FREE_PLAN } from './plans';

/** Error rule 4: over the storage limit, creation and credential vending answer 409 quota_exceeded (reads still work); the refusal is audited. */
export async function refuseOverQuota(d: { prisma: Db; db: SqlClient }, req: Request, w: { id: string; orgId: string | null; projectOwner: string }, operation: string): Promise<void> {
  const current = await scopeStoredBytes(d.prisma, w.orgId, w.projectOwner);
  if (current < FREE_PLAN.storage_bytes) return;
  await writeAudit(d.db, req, { action: 'quota.reject', orgId: w.orgId, targetType: 'warehouse', targetId: w.id, data: { operation, current, limit_value: FREE_PLAN.storage_bytes } });
  throw quotaExceeded('the storage limit is reached; reading still works', { current, limit_value: FREE_PLAN.storage_bytes, scope: quotaScopeOf(w.orgId) });
}
