import type { SqlClient } from '@floe/http';

// Publishing a catalog: one bucket policy lets anyone read the table bucket
// (the catalog itself stays private). Its bytes move to the public tier,
// whose allowance (Limits: 50 GB) is separate from private storage.

export const PUBLIC_TIER_BYTES = 50 * 1024 ** 3;

/**
 * Bytes already in the public tier of the scope (organisation, or an owner's
 * projects outside any), by the latest sample of each public warehouse.
 */
export async function publicTierBytes(db: SqlClient, orgId: string | null, ownerId: string, exceptWarehouse: string): Promise<number> {
  const { rows } = await db.query<{ bytes: string | null }>(
    `SELECT sum(s.table_bytes) AS bytes
       FROM warehouses w JOIN projects p ON p.id = w.project_id
       JOIN LATERAL (SELECT table_bytes FROM usage_samples u WHERE u.warehouse_id = w.id ORDER BY measured_at DESC LIMIT 1) s ON true
      WHERE w.public_since IS NOT NULL AND w.id <> $2 AND w.status IN ('provisioning', 'ready')
        AND ${orgId ? 'w.org_id = $1' : 'w.org_id IS NULL AND p.owner_id = $1'}`,
    [orgId ?? ownerId, exceptWarehouse],
  );
  return Number(rows[0]?.bytes ?? 0);
}

/** State rule: publishing needs the public tier not to overflow; the figures for 409 `quota_exceeded` when it would. */
export function publicTierOverflow(alreadyPublic: number, adding: number): { current: number; limit_value: number; headroom: number } | null {
  const current = alreadyPublic + adding;
  if (current <= PUBLIC_TIER_BYTES) return null;
  return { current, limit_value: PUBLIC_TIER_BYTES, headroom: Math.max(0, PUBLIC_TIER_BYTES - alreadyPublic) };
}
