import type { Express } from 'express';
import { z } from 'zod';
import { bumpCredentialEpoch } from '@floe/auth';
import { HttpError, badRequest, forbidden, parse, rateLimited, route, writeAudit } from '@floe/http';
import { QUEUES, RO_RETIREMENT_DELAY_SECONDS } from '@floe/queues';
import { StorageError } from '@floe/storage';
import type { AccessContext } from '../access/context';
import { membershipIn } from '../access/context';
import { requireLevel } from '../access/require';
import type { ControlPlaneDeps } from '../deps';
import { FREE_PLAN } from '../domain/plans';
import { resolveWarehouse } from '../resolve';
import { scopeStoredBytes } from '../store/usage';
import type { VisibleWarehouse } from '../store/warehouses';
import { PUBLIC_NOTE, iso } from '../views';

// Spec: POST /v1/warehouses/{id}/rotate, POST|DELETE …/public, POST …/measure.

const Confirm = z.object({ confirm: z.string().optional() });
const MEASURE_PAGE_CAP = 50;
const STALE_AFTER_MS = 2 * 3600_000;

export function mountWarehouseActions(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/warehouses/:warehouse_id/rotate', {
    post: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.db, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.db, w, 'write', 'rotating catalog credentials');
      const { rows: old } = await d.db.query<{ client_id: string; access: 'read' | 'write' }>(
        `SELECT client_id, access FROM catalog_credentials WHERE warehouse_id = $1 AND revoked_at IS NULL`, [w.id]);
      const oldRw = old.filter((c) => c.access === 'write').map((c) => c.client_id);
      const oldRo = old.filter((c) => c.access === 'read').map((c) => c.client_id);
      // The new pair first, so the catalog never has no credential.
      const pair = await d.secrets.issuePair(d.db, w.id);
      const rotatedAt = new Date();
      if (oldRw.length) {
        await d.db.query(`UPDATE catalog_credentials SET revoked_at = now() WHERE client_id = ANY($1::text[]) AND revoked_at IS NULL`, [oldRw]);
      }
      // Every cached standing (catalog, token exchange) is dropped before the answer.
      await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
      const expected = new Date(rotatedAt.getTime() + RO_RETIREMENT_DELAY_SECONDS * 1000);
      for (const clientId of oldRo) {
        await d.queues.add(QUEUES.credentials, 'retire', {
          warehouse_id: w.id, client_id: clientId, rotated_by: req.access!.principalId, org_id: w.orgId, request_id: req.requestId,
        }, { jobId: `retire-${clientId}`, delay: RO_RETIREMENT_DELAY_SECONDS * 1000, attempts: 10, backoff: { type: 'exponential', delay: 2000 } });
      }
      await writeAudit(d.db, req, {
        action: 'warehouse.rotate', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
        data: { new_client_id: pair.rw.client_id, new_client_id_ro: pair.ro.client_id, previous_client_id: oldRw[0] ?? null, previous_client_id_ro: oldRo[0] ?? null },
      });
      res.json({
        warehouse_id: w.id,
        warehouse_name: w.tableBucket,
        catalog_credential: pair.rw,
        catalog_credential_ro: pair.ro,
        previous_client_id: oldRw[0] ?? null,
        previous_revoked: oldRw.length > 0,
        previous_client_id_ro: oldRo[0] ?? null,
        previous_revoked_ro: false,
        previous_ro_revocation: oldRo.length
          ? { status: 'queued', audit: 'warehouse.rotate_complete', expected: expected.toISOString() }
          : null,
        rotated_at: rotatedAt.toISOString(),
        note: 'The old read/write key and its catalog tokens are refused from now on; the old read-only key about 10 s from now. Storage sessions already vended expire within 900 s.',
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
      const result = await storageStep(() => d.storage.setPublicRead(w.tableBucket, true));
      const { rows } = await d.db.query<{ public_since: Date }>(
        `UPDATE warehouses SET public_since = COALESCE(public_since, now()), public_by = COALESCE(public_by, $2) WHERE id = $1 RETURNING public_since`,
        [w.id, ctx.principalId]);
      const bytes = w.usage ? w.usage.tableBytes : null;
      await writeAudit(d.db, req, { action: 'warehouse.update', orgId: w.orgId, targetType: 'warehouse', targetId: w.id, data: { changes: { public: true }, previous: { public: w.publicSince !== null } } });
      res.json({
        warehouse_id: w.id,
        name: w.name,
        project_id: w.projectId,
        public: true,
        public_since: iso(rows[0].public_since),
        public_url: `${d.config.s3Url}/${w.tableBucket}/`,
        public_note: PUBLIC_NOTE,
        public_by: ctx.principalId,
        policy: result.policy,
        tier: 'public',
        public_storage_bytes: { table_bytes: bytes, measured_at: iso(w.usage?.measuredAt) },
        public_read: { bucket: w.tableBucket, anonymous_get: true, anonymous_list: false, writes: 'refused' },
        bucket_quotas: { quotas: {}, errors: [] },
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
        bucket_quotas: { quotas: {}, errors: [] },
        note: 'Anonymous reads are refused from now on.',
      });
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id/measure', {
    post: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.db, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.db, w, 'read', 'measuring a catalog');
      const mark = `${d.config.redisPrefix}measure:${w.id}`;
      const ttl = await d.redis.pttl(mark);
      if (ttl > 0) throw rateLimited(ttl / 1000, 'a catalog is measured at most once a minute');
      const started = Date.now();
      const [table, blob] = await storageStep(() => Promise.all([
        d.storage.measureByListing(w.tableBucket, MEASURE_PAGE_CAP),
        d.storage.measureByListing(w.blobBucket, MEASURE_PAGE_CAP),
      ]));
      // The once-a-minute mark is set only after a measurement succeeded, so a storage_error costs no wait.
      await d.redis.set(mark, '1', 'EX', 60);
      const complete = !table.partial && !blob.partial;
      const { rows } = await d.db.query<{ measured_at: Date }>(
        `INSERT INTO usage_samples (warehouse_id, source, table_bytes, blob_bytes, objects, blob_objects, complete)
         VALUES ($1, 'on_demand', $2, $3, $4, $5, $6) RETURNING measured_at`,
        [w.id, table.bytes, blob.bytes, table.objects, blob.objects, complete]);
      const measuredAt = rows[0].measured_at;
      const staleAfter = new Date(measuredAt.getTime() + STALE_AFTER_MS);
      const bytes = table.bytes + blob.bytes;
      const current = await scopeStoredBytes(d.db, w.orgId, w.projectOwner);
      await writeAudit(d.db, req, { action: 'warehouse.measure', orgId: w.orgId, targetType: 'warehouse', targetId: w.id, data: { bytes, objects: table.objects + blob.objects, partial: !complete } });
      res.json({
        name: w.name,
        warehouse_id: w.id,
        measured_at: measuredAt.toISOString(),
        stale_after: staleAfter.toISOString(),
        source: 'on_demand',
        bytes,
        table_bytes: table.bytes,
        blob_bytes: blob.bytes,
        objects: table.objects + blob.objects,
        blob_objects: blob.objects,
        complete,
        partial: !complete,
        pages: table.pages + blob.pages,
        page_cap: MEASURE_PAGE_CAP,
        blob_bucket: 'listed',
        seconds: (Date.now() - started) / 1000,
        tier: w.publicSince ? 'public' : 'private',
        storage: {
          current, limit: FREE_PLAN.storage_bytes, headroom: Math.max(0, FREE_PLAN.storage_bytes - current),
          measured_at: measuredAt.toISOString(), stale_after: staleAfter.toISOString(), over_limit: current > FREE_PLAN.storage_bytes,
        },
        public_storage: w.publicSince ? { bytes: table.bytes } : {},
        bucket_quotas: {},
        note: complete
          ? 'Stored as an on-demand sample; quota enforcement still follows the hourly sweep.'
          : `More than ${MEASURE_PAGE_CAP} listing pages: bytes is a lower bound.`,
      });
    }],
  });
}

/** Publishing is an admin's act (Authentication 6). */
function requireAdmin(ctx: AccessContext, w: VisibleWarehouse, what: string): void {
  const m = membershipIn(ctx, w.orgId);
  const admin = m ? m.role === 'admin' : w.orgId === null && w.projectOwner === ctx.principalId;
  if (!admin) throw forbidden('forbidden', `${what} is for an admin of the organisation`, { needed: 'admin' });
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
