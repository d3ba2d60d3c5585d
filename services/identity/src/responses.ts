import type { ApiKeyRecord } from '@floe/accounts';

// The shapes the spec gives for identity's resources, built from records.

export const iso = (v: Date | string | null): string | null => (v === null ? null : new Date(v).toISOString());

/** An API key as listed: by key id, never the secret. */
export function keyView(row: ApiKeyRecord) {
  return {
    key_id: row.keyId,
    label: row.label,
    status: row.revokedAt ? 'revoked' : 'active',
    created_at: iso(row.createdAt),
    last_used_at: iso(row.lastUsedAt),
    revoked_at: iso(row.revokedAt),
  };
}
