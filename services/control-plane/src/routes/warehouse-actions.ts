import type { Express } from 'express';
import { z } from 'zod';
import { badRequest, forbidden, HttpError, parse, quotaExceeded, quotaScopeOf, rateLimited, route, writeAudit } from '@floe/http';
import { StorageError, type StorageProvider } from '@floe/storage';
import type { AccessContext } from '../access/context';
import { membershipIn } from '../access/context';
import { requireLevel } from '../access/require';
import type { ControlPlaneDeps } from '../deps';
import { MEASURE_PAGE_CAP, SAMPLE_STALE_AFTER_MS, claimMeasureSlot, measureBuckets, releaseMeasureSlot, storeOnDemandSample } from '../domain/measuring';
import { FREE_PLAN } from '../domain/plans';
import { PUBLIC_TIER_BYTES, publicTierBytes, publicTierOverflow } from '../domain/publishing';
import { ROTATE_NOTE, rotateCredentials } from '../domain/warehouse-rotate';
import { resolveWarehouse } from '../resolve';
import { scopeStoredBytes } from '../store/usage';
import type { VisibleWarehouse } from '../store/warehouses';
import { PUBLIC_NOTE, iso } from '../views';

// Spec: POST /v1/warehouses/{id}/rotate, POST|DELETE …/public, POST …/measure.

const Confirm = z.object({ confirm: z.string().optional() });

export function mountWarehouseActions(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/warehouses/:warehouse_id/rotate', {
    post: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.db, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.db, w, 'write', 'rotating catalog credentials');
      const r = await rotateCredentials(
        { db: d.db, redis: d.redis, redisPrefix: d.config.redisPrefix, secrets: d.secrets, queues: d.queues },
        w, { principalId: req.access!.principalId, requestId: req.requestId },
      );
      await writeAudit(d.db, req, {
        action: 'warehouse.rotate', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
        data: { new_client_id: r.pair.rw.client_id, new_client_id_ro: r.pair.ro.client_id, previous_client_id: r.previousRw, previous_client_id_ro: r.previousRo },
      });
      res.json({
        warehouse_id: w.id,
        warehouse_name: w.tableBucket,
        catalog_credential: r.pair.rw,
        catalog_credential_ro: r.pair.ro,
        previous_client_id: r.previousRw,
        previous_revoked: r.previousRw !== null,
        previous_client_id_ro: r.previousRo,
        previous_revoked_ro: false,
        previous_ro_revocation: r.roRetirementExpected
          ? { status: 'queued', audit: 'warehouse.rotate_complete', expected: r.roRetirementExpected.toISOString() }
          : null,
        rotated_at: r.rotatedAt.toISOString(),
        note: ROTATE_NOTE,
      });
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id/public', {
    post: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const w = await resolveWarehouse(d.db, ctx, String(req.params.warehouse_id));
      requireAdmin(ctx, w, 'making a catalog public');
      const body = parse(Confirm, req.body ?? {});
      if (body.confirm !== w.name) {
        throw badRequest('confirmation_required', `confirm with the catalog's name: {"confirm": "${w.name}"}`, { confirm_with: w.name, field: 'confirm' });
      }
      const adding = w.usage?.tableBytes ?? 0;
      const alreadyPublic = await publicTierBytes(d.db, w.orgId, w.projectOwner, w.id);
      const overflow = w.publicSince ? null : publicTierOverflow(alreadyPublic, adding);
      if (overflow) {
        await writeAudit(d.db, req, { action: 'quota.reject', orgId: w.orgId, targetType: 'warehouse', targetId: w.id, data: { operation: 'warehouse.public', tier: 'public', ...overflow } });
        throw quotaExceeded(`publishing would put ${overflow.current} bytes in the public tier; its allowance is ${overflow.limit_value}`, {
          tier: 'public', scope: quotaScopeOf(w.orgId), ...overflow,
        });
      }
      const result = await storageStep(() => d.storage.setPublicRead(w.tableBucket, true));
      const { rows } = await d.db.query<{ public_since: Date; public_by: string }>(
        `UPDATE warehouses SET public_since = COALESCE(public_since, now()), public_by = COALESCE(public_by, $2) WHERE id = $1 RETURNING public_since, public_by`,
        [w.id, ctx.principalId]);
      if (!w.publicSince) {
        await writeAudit(d.db, req, { action: 'warehouse.update', orgId: w.orgId, targetType: 'warehouse', targetId: w.id, data: { changes: { public: true }, previous: { public: false } } });
      }
      res.json({
        warehouse_id: w.id,
        name: w.name,
        project_id: w.projectId,
        public: true,
        public_since: iso(rows[0].public_since),
        public_url: `${d.config.s3Url}/${w.tableBucket}/`,
        public_note: PUBLIC_NOTE,
        public_by: rows[0].public_by,
        policy: result.policy,
        tier: 'public',
        public_storage_bytes: {
          table_bytes: w.usage ? w.usage.tableBytes : null,
          measured_at: iso(w.usage?.measuredAt),
          tier_current: alreadyPublic + adding,
          tier_limit: PUBLIC_TIER_BYTES,
        },
        public_read: { bucket: w.tableBucket, anonymous_get: true, anonymous_list: false, writes: 'refused', catalog: 'private' },
        bucket_quotas: await bucketQuotas(d.storage, [w.tableBucket]),
        note: result.changed ? 'Anyone can now read every object of the table bucket without credentials.' : 'The catalog was already public; nothing changed.',
      });
    }],
    delete: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const w = await resolveWarehouse(d.db, ctx, String(req.params.warehouse_id));
      requireAdmin(ctx, w, 'making a catalog private');
      const result = await storageStep(() => d.storage.setPublicRead(w.tableBucket, false));
      await d.db.query(`UPDATE warehouses SET public_since = NULL, public_by = NULL WHERE id = $1`, [w.id]);
      if (w.publicSince) {
        await writeAudit(d.db, req, { action: 'warehouse.update', orgId: w.orgId, targetType: 'warehouse', targetId: w.id, data: { changes: { public: false }, previous: { public: true } } });
      }
      res.json({
        warehouse_id: w.id,
        name: w.name,
        project_id: w.projectId,
        public: false,
        public_since: null,
        public_url: null,
        was_public: w.publicSince !== null,
        policy_removed: result.changed,
        tier: 'private',
        storage_bytes: { table_bytes: w.usage?.tableBytes ?? null, blob_bytes: w.usage?.blobBytes ?? null, measured_at: iso(w.usage?.measuredAt) },
        bucket_quotas: await bucketQuotas(d.storage, [w.tableBucket]),
        note: w.publicSince ? 'Anonymous reads are refused from now on.' : 'The catalog was not public; nothing changed.',
      });
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id/measure', {
    post: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.db, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.db, w, 'read', 'measuring a catalog');
      const taken = await claimMeasureSlot(d.redis, d.config.redisPrefix, w.id);
      if (taken) throw rateLimited(taken.retryAfterSeconds, 'a catalog is measured at most once a minute');
      let m;
      try {
        m = await storageStep(() => measureBuckets(d.storage, w.tableBucket, w.blobBucket));
      } catch (err) {
        await releaseMeasureSlot(d.redis, d.config.redisPrefix, w.id);
        throw err;
      }
      const measuredAt = await storeOnDemandSample(d.db, w.id, m);
      const staleAfter = new Date(measuredAt.getTime() + SAMPLE_STALE_AFTER_MS);
      const complete = !m.table.partial && !m.blob.partial;
      const bytes = m.table.bytes + m.blob.bytes;
      const objects = m.table.objects + m.blob.objects;
      const current = await scopeStoredBytes(d.db, w.orgId, w.projectOwner);
      await writeAudit(d.db, req, { action: 'warehouse.measure', orgId: w.orgId, targetType: 'warehouse', targetId: w.id, data: { bytes, objects, partial: !complete } });
      res.json({
        name: w.name,
        warehouse_id: w.id,
        measured_at: measuredAt.toISOString(),
        stale_after: staleAfter.toISOString(),
        source: 'on_demand',
        bytes,
        table_bytes: m.table.bytes,
        blob_bytes: m.blob.bytes,
        objects,
        blob_objects: m.blob.objects,
        complete,
        partial: !complete,
        pages: m.table.pages + m.blob.pages,
        page_cap: MEASURE_PAGE_CAP,
        blob_bucket: m.blobBucket,
        seconds: m.seconds,
        tier: w.publicSince ? 'public' : 'private',
        storage: {
          current, limit: FREE_PLAN.storage_bytes, headroom: Math.max(0, FREE_PLAN.storage_bytes - current),
          measured_at: measuredAt.toISOString(), stale_after: staleAfter.toISOString(), over_limit: current > FREE_PLAN.storage_bytes,
        },
        public_storage: w.publicSince ? { table_bytes: m.table.bytes, limit: PUBLIC_TIER_BYTES } : {},
        bucket_quotas: {},
        note: complete
          ? 'Stored as an on-demand sample; quota enforcement still follows the hourly sweep.'
          : `More than ${MEASURE_PAGE_CAP} listing pages in a bucket: bytes is a lower bound. Quota enforcement still follows the hourly sweep.`,
      });
    }],
  });
}

/** Publishing is an admin's act (Authentication 6); outside an organisation the project's owner is its admin. */
function requireAdmin(ctx: AccessContext, w: VisibleWarehouse, what: string): void {
  const m = membershipIn(ctx, w.orgId);
  const admin = m ? m.role === 'admin' : w.orgId === null && w.projectOwner === ctx.principalId;
  if (!admin) throw forbidden('forbidden', `${what} is for an admin of the organisation`, { needed: 'admin', level: w.access.level });
}

/** The hard quotas the store holds on the buckets; a bucket the admin API cannot read is listed under errors, not fatal. */
async function bucketQuotas(storage: StorageProvider, buckets: string[]) {
  const quotas: Record<string, { enabled: boolean; max_bytes: number | null }> = {};
  const errors: Array<{ bucket: string; error: string }> = [];
  for (const bucket of buckets) {
    try {
      const q = await storage.getBucketQuota(bucket);
      quotas[bucket] = { enabled: q.enabled, max_bytes: q.maxBytes };
    } catch (err) {
      errors.push({ bucket, error: err instanceof StorageError ? err.kind : 'unavailable' });
    }
  }
  return { quotas, errors };
}

async function storageStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof StorageError) {
      throw new HttpError(502, 'storage_error', 'the object store did not answer; retry shortly (it is safe)', { retry_after_seconds: 5 }, { 'Retry-After': '5' });
    }
    throw err;
  }
}
