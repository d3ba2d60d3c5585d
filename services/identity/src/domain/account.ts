import type { Request } from 'express';
import type { Redis } from 'ioredis';
import { markDeleted, removeFromOrganizations } from '@floe/accounts';
import { bumpCredentialEpoch } from '@floe/auth';
import type { FloeConfig } from '@floe/config';
import type { PrismaClient } from '@floe/db';
import { badRequest, forbidden, writeAudit, type Caller, type SqlClient } from '@floe/http';
import { unlinkAllOf } from '../store/external-identities';
import { removePasskeysOf } from '../store/passkeys';
import { removeSecondFactor } from '../store/second-factor';
import { revokeSessionsOf } from '../store/sessions';

// Spec: DELETE /v1/me. Confirmed with the person's own address; immediate,
// in one transaction: the person leaves every organisation (a last admin is
// refused), every key and session is revoked, every identity at a sign-in
// provider unlinked (its subject may make a new account) and the account
// marked deleted, so every later credential answers 401 `account_deleted`.

export interface AccountDeps {
  prisma: PrismaClient;
  db: SqlClient;
  redis: Redis;
  config: Pick<FloeConfig, 'redisPrefix'>;
}

export async function deleteAccount(d: AccountDeps, req: Request, caller: Caller, confirm: unknown) {
  if (caller.kind !== 'human' || !caller.email) throw forbidden('forbidden', 'deleting an account is a person\'s act; a token cannot do it');
  if (typeof confirm !== 'string' || confirm.trim().toLowerCase() !== caller.email.toLowerCase()) {
    throw badRequest('confirmation_required', `confirm with your own address: {"confirm": "${caller.email}"}`, { field: 'confirm', confirm_with: caller.email });
  }
  // One transaction: out of every organisation (or 409 last_admin, and nothing changed), every key and session refused, the account marked.
  const { left, keysRevoked, sessionsRevoked, identitiesUnlinked } = await d.prisma.$transaction(async (tx) => {
    const left = await removeFromOrganizations(tx, caller.principalId);
    const { keysRevoked } = await markDeleted(tx, caller.principalId);
    await removeSecondFactor(tx, caller.principalId);
    await removePasskeysOf(tx, caller.principalId);
    const identitiesUnlinked = await unlinkAllOf(tx, caller.principalId);
    return { left, keysRevoked, identitiesUnlinked, sessionsRevoked: await revokeSessionsOf(tx, caller.principalId, 'account_deleted') };
  });
  // Every process drops what it knows of this person's credentials at once.
  await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
  await writeAudit(d.db, req, {
    action: 'account.delete', targetType: 'principal', targetId: caller.principalId,
    data: { keys_revoked: keysRevoked, sessions_revoked: sessionsRevoked, identities_unlinked: identitiesUnlinked, memberships_removed: left.memberships_removed, organizations_left_empty: left.organizations_left_empty, agents_stopped: left.agents_stopped },
  });
  return {
    principal_id: caller.principalId,
    deleted: true,
    keys_revoked: keysRevoked,
    sessions_revoked: sessionsRevoked,
    memberships_removed: left.memberships_removed,
    grants_removed: left.grants_removed,
    organizations_left_empty: left.organizations_left_empty,
    agents_stopped: left.agents_stopped,
    note: 'Every key and session is refused from now on. Data of organisations left without members is erased within 30 days and leaves backups within 14 more.',
  };
}
