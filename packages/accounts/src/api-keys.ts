import { generateApiKey } from '@floe/auth';
import type { Db } from '@floe/db';
import type { SqlClient } from '@floe/http';

// Spec: API keys. Rows, never their secrets: a key is shown once, when it is
// made; only its hash is stored, and only the authenticator in packages/auth
// reads it.

/** A key's label, as every route that makes a key takes it (its one home is the API's description). */
export { ApiKeyLabel } from '@floe/api';

export interface ApiKeyRecord {
  keyId: string;
  label: string;
  principalId: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const record = { keyId: true, label: true, principalId: true, createdAt: true, lastUsedAt: true, revokedAt: true } as const;

export interface IssuedApiKey extends ApiKeyRecord {
  /** The whole key; shown once, never stored. */
  apiKey: string;
}

export async function issueApiKey(db: Db, principalId: string, label: string): Promise<IssuedApiKey> {
  const k = generateApiKey();
  const row = await db.apiKey.create({ data: { keyId: k.keyId, principalId, label, secretHash: k.secretHash }, select: record });
  return { ...row, apiKey: k.token };
}

/** A principal's keys, newest first. */
export async function apiKeysOf(pool: SqlClient, principalId: string): Promise<ApiKeyRecord[]> {
  // Raw over pg: bench/auth measures this route against /healthz; a named prepared statement keeps it near the floor.
  const { rows } = await pool.query<ApiKeyRecord>({
    name: 'list_api_keys',
    text: `SELECT key_id AS "keyId", label, principal_id AS "principalId", created_at AS "createdAt", last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"
             FROM api_keys WHERE principal_id = $1 ORDER BY created_at DESC, key_id`,
    values: [principalId],
  });
  return rows;
}

/** Records a key's use (authentication calls it at most once a minute per key per process); over pg, as the request's own statements run. */
export async function recordKeyUse(pool: SqlClient, keyId: string): Promise<void> {
  await pool.query(`UPDATE api_keys SET last_used_at = now() WHERE key_id = $1`, [keyId]);
}

/**
 * Revokes a key. `ownerId` confines it to that principal's keys (null: any key,
 * for internal routes). Returns null when no such key; revoking twice keeps the
 * first revocation time.
 */
export async function revokeApiKey(db: Db, keyId: string, ownerId: string | null): Promise<{ row: ApiKeyRecord; alreadyRevoked: boolean } | null> {
  // Raw: one statement keeps the first revocation time and reports whether there was one (the row locked between).
  const rows = await db.$queryRaw<Array<ApiKeyRecord & { wasRevoked: boolean }>>`
    UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, now())
      FROM (SELECT key_id, revoked_at IS NOT NULL AS was_revoked FROM api_keys WHERE key_id = ${keyId} FOR UPDATE) old
     WHERE k.key_id = old.key_id AND (${ownerId}::text IS NULL OR k.principal_id = ${ownerId})
     RETURNING k.key_id AS "keyId", k.label, k.principal_id AS "principalId", k.created_at AS "createdAt",
               k.last_used_at AS "lastUsedAt", k.revoked_at AS "revokedAt", old.was_revoked AS "wasRevoked"`;
  const r = rows[0];
  if (!r) return null;
  const { wasRevoked, ...row } = r;
  return { row, alreadyRevoked: wasRevoked };
}
