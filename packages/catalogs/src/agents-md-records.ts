import { Prisma, type Db } from '@floe/db';

// A catalog's instructions for AI assistants (its AGENTS.md): four columns of
// the warehouse row, written only here (the catalogs aggregate writes the
// warehouse rows; the control plane's PUT …/agents-md is the one caller).
// `swapAgentsMd` is the compare-and-set: one conditional UPDATE, so of writers
// that all expected one version exactly one succeeds and the others find the
// new version in place.

/** The text and its version as stored; `content` and `etag` are null when there is none (never set, or removed). */
export interface AgentsMdRecord {
  content: string | null;
  etag: string | null;
  bytes: number;
  /** The last write, a removal included: null only when none was ever made. */
  updatedAt: Date | null;
  updatedBy: string | null;
}

/** What the stored version must be for a write to go ahead. */
export type AgentsMdExpectation =
  | { kind: 'any' }
  /** No text stored (`etag: null`, `If-None-Match: *`). */
  | { kind: 'absent' }
  /** Some text stored, whatever its version (`If-Match: *`). */
  | { kind: 'present' }
  /** The stored version is one of these. */
  | { kind: 'one_of'; etags: string[] };

export interface AgentsMdSwap {
  previousEtag: string | null;
  previousBytes: number;
  /** The write's, or for removing what was not there (which changes nothing) the last write's. */
  updatedAt: Date | null;
  updatedBy: string | null;
}

/** The live (ready or provisioning) catalog's instructions; null when the catalog is not live. */
export async function readAgentsMd(db: Db, warehouseId: string): Promise<AgentsMdRecord | null> {
  const row = await db.warehouse.findFirst({
    where: { id: warehouseId, status: { in: ['ready', 'provisioning'] }, deletedAt: null },
    select: { agentsMd: true, agentsMdEtag: true, agentsMdUpdatedAt: true, agentsMdUpdatedBy: true },
  });
  if (!row) return null;
  return {
    content: row.agentsMd, etag: row.agentsMdEtag, bytes: row.agentsMd === null ? 0 : Buffer.byteLength(row.agentsMd, 'utf8'),
    updatedAt: row.agentsMdUpdatedAt, updatedBy: row.agentsMdUpdatedBy,
  };
}

/** Version, size and time of the catalog's instructions without the text (GET /v1/warehouses/{id}); null when it has none. */
export async function agentsMdSummary(db: Db, warehouseId: string): Promise<{ etag: string; bytes: number; updatedAt: Date | null } | null> {
  // Raw: octet_length sizes the text in the database, so the catalog's GET never carries up to 64 KiB it does not answer.
  const rows = await db.$queryRaw<Array<{ etag: string; bytes: number; updated_at: Date | null }>>`
    SELECT agents_md_etag AS etag, octet_length(agents_md)::int AS bytes, agents_md_updated_at AS updated_at
      FROM warehouses WHERE id = ${warehouseId} AND agents_md_etag IS NOT NULL`;
  return rows[0] ? { etag: rows[0].etag, bytes: rows[0].bytes, updatedAt: rows[0].updated_at } : null;
}

function condition(e: AgentsMdExpectation): Prisma.Sql {
  switch (e.kind) {
    case 'any': return Prisma.sql`true`;
    case 'absent': return Prisma.sql`prev.etag IS NULL`;
    case 'present': return Prisma.sql`prev.etag IS NOT NULL`;
    case 'one_of': return Prisma.sql`prev.etag = ANY(${e.etags}::text[])`;
  }
}

/**
 * Writes the catalog's instructions (`content` null removes them) if the
 * stored version meets `expect`; null when it does not, or the catalog is no
 * longer live (the caller reads the row again to tell which).
 */
export async function swapAgentsMd(
  db: Db, warehouseId: string, expect: AgentsMdExpectation, next: { content: string | null; etag: string | null; by: string },
): Promise<AgentsMdSwap | null> {
  // Raw: one statement is the compare-and-set. The CTE locks the row and reads
  // the version that stands once any concurrent writer has committed (READ
  // COMMITTED re-reads a locked row), so the condition is judged on that
  // version and the previous etag answered is the one this write replaced.
  // Removing what is not there keeps the last write's time and author: nothing changed.
  const noop = Prisma.sql`(prev.etag IS NULL AND ${next.etag}::text IS NULL)`;
  const rows = await db.$queryRaw<Array<{ previous_etag: string | null; previous_bytes: number | null; updated_at: Date | null; updated_by: string | null }>>`
    WITH prev AS (
      SELECT id, agents_md_etag AS etag, octet_length(agents_md)::int AS bytes
        FROM warehouses
       WHERE id = ${warehouseId} AND status IN ('ready', 'provisioning') AND deleted_at IS NULL
         FOR UPDATE)
    UPDATE warehouses w
       SET agents_md = ${next.content}, agents_md_etag = ${next.etag},
           agents_md_updated_at = CASE WHEN ${noop} THEN w.agents_md_updated_at ELSE now() END,
           agents_md_updated_by = CASE WHEN ${noop} THEN w.agents_md_updated_by ELSE ${next.by} END
      FROM prev
     WHERE w.id = prev.id AND ${condition(expect)}
    RETURNING prev.etag AS previous_etag, prev.bytes AS previous_bytes, w.agents_md_updated_at AS updated_at, w.agents_md_updated_by AS updated_by`;
  const r = rows[0];
  return r ? { previousEtag: r.previous_etag, previousBytes: r.previous_bytes ?? 0, updatedAt: r.updated_at, updatedBy: r.updated_by } : null;
}
