import type { Redis } from 'ioredis';
import type { PrismaClient } from '@floe/db';
import { bumpCredentialEpoch } from '@floe/auth';
import { credentialJobs, RO_RETIREMENT_DELAY_SECONDS, type Producers } from '@floe/queues';
import { liveCredentials, lockWarehouseForCredentials, revokeCredentials, type CatalogCredentialPair, type CatalogSecrets } from '@floe/catalogs';

// POST /v1/warehouses/{id}/rotate. Order matters: the new pair exists before
// any old key stops, so the warehouse is never without a credential; the old
// read/write key is revoked and every cached standing dropped (credential
// epoch: the catalog and identity's token exchange) before the answer; the
// old read-only key gets a few seconds' grace for readers to switch, then the
// teardown worker retires it and audits `warehouse.rotate_complete`.
//
// Rotations of one warehouse are serialized: reading the live pair, issuing
// the new one and revoking the old read/write key happen in one transaction
// holding the warehouse row's lock. Without it, concurrent rotations all read
// the same old pair and each left its own new pair live (five at once left two
// live read/write keys). Serialized, each rotation revokes (read/write) or
// queues for retirement (read-only) the pair the one before it issued, so once
// the retirements have run exactly one pair is live: the last answer's.

export interface RotateDeps {
  prisma: PrismaClient;
  redis: Redis;
  redisPrefix: string;
  secrets: CatalogSecrets;
  queues: Producers;
}

export interface Rotation {
  pair: CatalogCredentialPair;
  previousRw: string | null;
  previousRo: string | null;
  rotatedAt: Date;
  /** When the worker is due to retire the old read-only key; null when there was none. */
  roRetirementExpected: Date | null;
}

export async function rotateCredentials(
  d: RotateDeps,
  w: { id: string; orgId: string | null },
  actor: { principalId: string; requestId: string | null },
): Promise<Rotation> {
  const { pair, oldRw, oldRo, rotatedAt } = await d.prisma.$transaction(async (tx) => {
    if (!(await lockWarehouseForCredentials(tx, w.id))) throw new Error(`warehouse ${w.id} vanished during a rotate`);
    const old = await liveCredentials(tx, w.id);
    const issued = await d.secrets.issuePair(tx, w.id);
    const rw = old.filter((c) => c.access === 'write').map((c) => c.clientId);
    await revokeCredentials(tx, rw);
    return { pair: issued, oldRw: rw, oldRo: old.filter((c) => c.access === 'read').map((c) => c.clientId), rotatedAt: new Date() };
  }, { maxWait: 10_000, timeout: 15_000 });
  // After the commit: a standing dropped from the caches before it is revoked would be loaded again as still valid.
  await bumpCredentialEpoch(d.redis, d.redisPrefix);

  for (const clientId of oldRo) {
    // The job id is the client id: a retried request queues one retirement.
    await d.queues.enqueue(credentialJobs.retire, {
      warehouse_id: w.id, client_id: clientId, rotated_by: actor.principalId, org_id: w.orgId, request_id: actor.requestId,
    });
  }
  return {
    pair,
    previousRw: oldRw[0] ?? null,
    previousRo: oldRo[0] ?? null,
    rotatedAt,
    roRetirementExpected: oldRo.length ? new Date(rotatedAt.getTime() + RO_RETIREMENT_DELAY_SECONDS * 1000) : null,
  };
}

export const ROTATE_NOTE = `The old read/write key and every catalog token minted from it are refused from now on; the old read-only key about ${RO_RETIREMENT_DELAY_SECONDS} s from now. Storage sessions already vended expire within 900 s.`;
