import { generateApiKey } from '@floe/auth';
import type { SqlClient } from '@floe/http';

export interface ApiKeyRow {
  key_id: string;
  label: string;
  principal_id: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface IssuedApiKey extends ApiKeyRow {
  /** The whole key; shown once, never stored. */
  api_key: string;
}

const COLUMNS = `key_id, label, principal_id, created_at, last_used_at, revoked_at`;

export async function issueApiKey(db: SqlClient, principalId: string, label: string): Promise<IssuedApiKey> {
  const k = generateApiKey();
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (key_id, principal_id, label, secret_hash) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [k.keyId, principalId, label, k.secretHash],
  );
  return { ...rows[0], api_key: k.token };
}

export async function listApiKeys(db: SqlClient, principalId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>({
    name: 'list_api_keys',
    text: `SELECT ${COLUMNS} FROM api_keys WHERE principal_id = $1 ORDER BY created_at DESC, key_id`,
    values: [principalId],
  });
  return rows;
}

/**
 * Revokes a key. `ownerId` confines it to that principal's keys (null: any key,
 * for internal routes). Returns null when no such key; revoking twice keeps the
 * first revocation time.
 */
export async function revokeApiKey(
  db: SqlClient,
  keyId: string,
  ownerId: string | null,
): Promise<{ row: ApiKeyRow; alreadyRevoked: boolean } | null> {
  const { rows } = await db.query<ApiKeyRow & { was_revoked: boolean }>(
    `UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, now())
       FROM (SELECT key_id, revoked_at IS NOT NULL AS was_revoked FROM api_keys WHERE key_id = $1 FOR UPDATE) old
      WHERE k.key_id = old.key_id AND ($2::text IS NULL OR k.principal_id = $2)
      RETURNING k.key_id, k.label, k.principal_id, k.created_at, k.last_used_at, k.revoked_at, old.was_revoked`,
    [keyId, ownerId],
  );
  const r = rows[0];
  if (!r) return null;
  const { was_revoked, ...row } = r;
  return { row, alreadyRevoked: was_revoked };
}

/** The listing row: by key id, never the secret. */
export function keyView(row: ApiKeyRow) {
  return {
    key_id: row.key_id,
    label: row.label,
    status: row.revoked_at ? 'revoked' : 'active',
    created_at: iso(row.created_at),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
  };
}

export function iso(v: string | Date | null): string | null {
  return v === null ? null : new Date(v).toISOString();
}
