import type { Job } from 'bullmq';
import { bumpCredentialEpoch } from '@floe/auth';
import { writeAudit } from '@floe/http';
import { RetireCredentialJob } from '@floe/queues';
import type { WorkerDeps } from './deps';

// After a rotate, the old read-only catalog credential keeps working for a
// few seconds so readers can switch; then this job revokes it, drops every
// cached standing (credential epoch) and records `warehouse.rotate_complete`.

export async function retireCredential(d: WorkerDeps, job: Job): Promise<string> {
  const data = RetireCredentialJob.parse(job.data);
  const { rowCount } = await d.db.query(
    `UPDATE catalog_credentials SET revoked_at = now() WHERE client_id = $1 AND warehouse_id = $2 AND revoked_at IS NULL`,
    [data.client_id, data.warehouse_id]);
  await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
  if (rowCount) {
    const actor = data.rotated_by
      ? (await d.db.query<{ kind: string }>(`SELECT kind FROM principals WHERE id = $1`, [data.rotated_by])).rows[0]
      : undefined;
    await writeAudit(d.db, null, {
      action: 'warehouse.rotate_complete', actorId: data.rotated_by, actorKind: actor?.kind ?? null, orgId: data.org_id,
      targetType: 'warehouse', targetId: data.warehouse_id, data: { client_id: data.client_id, request_id: data.request_id },
    });
  }
  return rowCount ? 'retired' : 'already retired';
}
