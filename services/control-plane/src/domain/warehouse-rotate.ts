import type { Redis } from 'ioredis';
import { bumpCredentialEpoch } from '@floe/auth';
import type { SqlClient } from '@floe/http';
import { Producers, QUEUES, RO_RETIREMENT_DELAY_SECONDS, type RetireCredentialJob } from '@floe/queues';
import type { CatalogCredentialPair, CatalogSecrets } from './catalog-credentials';

// POST /v1/warehouses/{id}/rotate. Order matters: the new pair exists before
// any old key stops, so the warehouse is never without a credential; the old
// read/write key is revoked and every cached standing dropped (credential
// epoch: the catalog and identity's token exchange) before the answer; the
// old read-only key gets a few seconds' grace for readers to switch, then the
// teardown worker retires it and audits `warehouse.rotate_complete`.

export interface RotateDeps {
  db: SqlClient;
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
  const { rows: old } = await d.db.query<{ client_id: string; access: 'read' | 'write' }>(
    `SELECT client_id, access FROM catalog_credentials WHERE warehouse_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC`, [w.id]);
  const oldRw = old.filter((c) => c.access === 'write').map((c) => c.client_id);
  const oldRo = old.filter((c) => c.access === 'read').map((c) => c.client_id);

  const pair = await d.secrets.issuePair(d.db, w.id);
  const rotatedAt = new Date();
  if (oldRw.length) {
    await d.db.query(`UPDATE catalog_credentials SET revoked_at = now() WHERE client_id = ANY($1::text[]) AND revoked_at IS NULL`, [oldRw]);
  }
  await bumpCredentialEpoch(d.redis, d.redisPrefix);

  for (const clientId of oldRo) {
    const job: RetireCredentialJob = {
      warehouse_id: w.id, client_id: clientId, rotated_by: actor.principalId, org_id: w.orgId, request_id: actor.requestId,
    };
    // The job id is the client id: a retried request queues one retirement.
    await d.queues.add(QUEUES.credentials, 'retire', job, {
      jobId: `retire-${clientId}`, delay: RO_RETIREMENT_DELAY_SECONDS * 1000, attempts: 10, backoff: { type: 'exponential', delay: 2000 },
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
