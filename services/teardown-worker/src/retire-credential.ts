import { bumpCredentialEpoch } from '@floe/auth';
import { writeAudit } from '@floe/http';
import type { RetireCredentialJob } from '@floe/queues';
import { principalKind, revokeCredential } from '@floe/catalogs';
import type { WorkerDeps } from './deps';

// After a rotate, the old read-only catalog credential keeps working for a
// few seconds so readers can switch; then this job revokes it, drops every
// cached standing (credential epoch) and records `warehouse.rotate_complete`.

export async function retireCredential(d: WorkerDeps, data: RetireCredentialJob): Promise<string> {
  const retired = await revokeCredential(d.prisma, data.warehouse_id, data.client_id);
  await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
  if (retired) {
    await writeAudit(d.db, null, {
      action: 'warehouse.rotate_complete', actorId: data.rotated_by, actorKind: data.rotated_by ? await principalKind(d.prisma, data.rotated_by) : null, orgId: data.org_id,
      targetType: 'warehouse', targetId: data.warehouse_id, data: { client_id: data.client_id, request_id: data.request_id },
    });
  }
  return retired ? 'retired' : 'already retired';
}
