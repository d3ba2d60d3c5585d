import type { Db } from '@floe/db';

// The refresh tokens rotations replaced (see the schema's comment on
// retired_refresh_hashes): written by a rotation in its own transaction
// (store/sessions.ts, store/oauth-grants.ts), read by hash when a token the
// owner's row does not name comes back.

export type RefreshOwner = { sessionId: string } | { familyId: string };

/** Records `hash` as a rotated-out token of `owner`. */
export async function retireRefreshHash(db: Db, hash: string, owner: RefreshOwner): Promise<void> {
  await db.retiredRefreshHash.create({ data: { hash, ...owner } });
}

/** Whether `hash` is a rotated-out token of `owner` (one read by the key). */
export async function isRetiredOf(db: Db, hash: string, owner: RefreshOwner): Promise<boolean> {
  const r = await db.retiredRefreshHash.findUnique({ where: { hash }, select: { sessionId: true, familyId: true } });
  if (!r) return false;
  return 'sessionId' in owner ? r.sessionId === owner.sessionId : r.familyId === owner.familyId;
}
