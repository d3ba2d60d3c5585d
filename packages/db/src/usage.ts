// Stored bytes per quota scope, read by every deployable that enforces the
// storage limit (control plane, ingest gateway). A subpath export: importing
// it does not load the Prisma client.

/** A pg pool or client, or a Prisma client or transaction (its raw query). */
type Queryable =
  | { query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, any>> }> }
  | { $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T> };

/**
 * Stored bytes of a quota scope — an organisation, or an owner's projects
 * outside any — by the latest sample of each live warehouse, counted against
 * the private storage limit. A public catalog's table bucket is in the public
 * tier (its own allowance, control-plane domain/publishing.ts), so only its
 * blob bytes count here; its blob bucket is never public.
 */
export async function scopeStoredBytes(db: Queryable, orgId: string | null, ownerId: string): Promise<number> {
  const text = `SELECT sum(CASE WHEN w.public_since IS NULL THEN s.table_bytes ELSE 0 END + s.blob_bytes) AS bytes
       FROM warehouses w JOIN projects p ON p.id = w.project_id
       JOIN LATERAL (SELECT table_bytes, blob_bytes FROM usage_samples u WHERE u.warehouse_id = w.id ORDER BY measured_at DESC LIMIT 1) s ON true
      WHERE w.status IN ('provisioning', 'ready') AND ${orgId ? 'w.org_id = $1' : 'w.org_id IS NULL AND p.owner_id = $1'}`;
  const rows = 'query' in db ? (await db.query(text, [orgId ?? ownerId])).rows : await db.$queryRawUnsafe<Array<{ bytes: unknown }>>(text, orgId ?? ownerId);
  return Number(rows[0]?.bytes ?? 0);
}
