import type { Db } from '@floe/db';
import { effectiveLimits, overStorageLimit } from '@floe/db/limits';
import type { UsageReport, UsageReportAnswer } from '@floe/queues';
import { upsertReportedSample, liveWarehouseScope, scopeStoredBytes } from '@floe/catalogs';

// POST /internal/usage: the metering worker's hourly footprint report of one
// catalog (RGW bucket stats and usage-log counters). The control plane is the
// one writer of the samples (this, and the measure route's `on_demand`): one
// sample per measuring job, so a retried job adds none. It recomputes the
// scope's stored bytes against the organisation's effective storage limit and
// answers them, with the public tier's allowance (the hard quota of a public
// catalog's table bucket). The worker then enforces (bucket quotas,
// `warehouses.read_only_since`): it owns the storage side of the quota.

export async function recordUsageReport(d: { prisma: Db }, r: UsageReport): Promise<UsageReportAnswer> {
  const scope = await liveWarehouseScope(d.prisma, r.warehouse_id);
  if (!scope) return { warehouse_id: r.warehouse_id, recorded: false, scope: null, stored_bytes: 0, limit_value: 0, over: false, public_limit_value: 0 };
  await upsertReportedSample(d.prisma, r);
  const stored = await scopeStoredBytes(d.prisma, scope.orgId, scope.ownerId);
  const { limits } = await effectiveLimits(d.prisma, scope.orgId);
  return {
    warehouse_id: r.warehouse_id,
    recorded: true,
    scope: { kind: scope.orgId ? 'organization' : 'project', org_id: scope.orgId, owner_id: scope.ownerId },
    stored_bytes: stored,
    limit_value: limits.storage_bytes,
    over: overStorageLimit(stored, limits.storage_bytes),
    public_limit_value: limits.public_storage_bytes,
  };
}
