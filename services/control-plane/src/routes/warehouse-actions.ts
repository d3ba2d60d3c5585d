import type { Express } from 'express';
import { PublishWarehouseBody } from '@floe/api';
import { isWarehouseAdmin, requireAdmin, requireLevel, requirePerson, requirePolicyAllows } from '@floe/accounts';
import { resolveWarehouse, tombstonesFor, visibleWarehouses, warehouseById } from '@floe/catalogs';
import { badRequest, conflict, forbidden, notFound, parse, quotaExceeded, quotaScopeOf, route, writeAudit } from '@floe/http';
import { requireRecentSignIn } from '../access/load';
import type { ControlPlaneDeps } from '../deps';
import { MEASURE_PAGE_CAP, SAMPLE_STALE_AFTER_MS, measureNow } from '../domain/usage/measuring';
import { filesPrefixOf, publishWarehouse, unpublishWarehouse } from '../domain/warehouses/publishing';
import { notDeleted, RESTORE_NOTE, restoreWarehouse } from '../domain/warehouses/warehouse-restore';
import { ROTATE_NOTE, rotateCredentials } from '../domain/warehouses/warehouse-rotate';
import { placementOfWarehouse } from '../domain/warehouses/warehouses';
import { PUBLIC_NOTE, iso, publicUrlOf, warehouseGetRow } from '../responses';

// Spec: POST /v1/warehouses/{id}/rotate, POST|DELETE …/public, POST …/measure;
// POST …/restore (in the error index only; Floe's shape is in docs/api/catalog-deletion.md).

export function mountWarehouseActions(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/warehouses/:warehouse_id/rotate', {
    post: [...d.authed, requireRecentSignIn(d.prisma), async (req, res) => {
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.prisma, w, 'write', 'rotating catalog credentials');
      const r = await rotateCredentials(
        { prisma: d.prisma, redis: d.redis, redisPrefix: d.config.redisPrefix, secrets: d.secrets, queues: d.queues },
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

  route(app, '/v1/warehouses/:warehouse_id/restore', {
    post: [...d.authed, async (req, res) => {
      // resolve: a catalog being deleted, by id or name
      const ctx = req.access!;
      const asked = String(req.params.warehouse_id);
      const found = await tombstonesFor(d.prisma, ctx, asked, true);
      if (found.length === 0) {
        const live = await visibleWarehouses(d.prisma, ctx, { idOrName: asked });
        if (live.length) throw notDeleted(live[0]);
        throw notFound('warehouse_not_found', `no deleted warehouse with id or name ${JSON.stringify(asked)}`, { remedy: 'pass the warehouse_id the deletion answered' });
      }
      if (found.length > 1 && found[0].id !== asked) {
        throw conflict('ambiguous_name', `${found.length} deleted catalogs are named ${asked}; use a warehouse_id`, {
          candidates: found.map((t) => ({ warehouse_id: t.id, name: t.name, project_id: t.projectId, requested_at: iso(t.requestedAt) })),
        });
      }
      const t = found[0];
      // authorize
      if (!isWarehouseAdmin(ctx, t)) throw forbidden('forbidden', 'restoring a catalog is for an admin of the organisation', { needed: 'admin' });
      // act
      const w = (await warehouseById(d.prisma, t.id, ctx.principalId))!;
      const r = await restoreWarehouse({ ...d, redisPrefix: d.config.redisPrefix }, t, w);
      await writeAudit(d.db, req, {
        action: 'warehouse.restore', orgId: t.orgId, targetType: 'warehouse', targetId: t.id,
        data: { name: t.name, grants_restored: r.grantsRestored, new_client_id: r.pair.rw.client_id, new_client_id_ro: r.pair.ro.client_id, previous_client_ids: r.previousClientIds },
      });
      // answer: the catalog's row as GET answers it, and the new pair once
      const [fresh] = await visibleWarehouses(d.prisma, ctx, { idOrName: t.id });
      res.json({
        ...warehouseGetRow(d.config, fresh, await placementOfWarehouse(d, fresh)),
        restored: true,
        restored_at: r.restoredAt.toISOString(),
        deleted_at: iso(t.requestedAt),
        grants_restored: r.grantsRestored,
        // Its samples went with the deletion: the first is taken at once (or by the next sweep if the queue refused it).
        storage_measurement: r.measurementQueued ? { status: 'scheduled', in_seconds: 0, then: 'hourly' } : { status: 'next_sweep', in_seconds: null, then: 'hourly' },
        catalog_credential: r.pair.rw,
        catalog_credential_ro: r.pair.ro,
        previous_client_ids: r.previousClientIds,
        note: RESTORE_NOTE,
      });
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id/public', {
    post: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const w = await resolveWarehouse(d.prisma, ctx, String(req.params.warehouse_id));
      requireAdmin(ctx, w, 'making a catalog public');
      requirePerson(ctx, 'making a catalog public');
      const org = ctx.memberships.find((m) => m.orgId === w.orgId);
      if (org) await requirePolicyAllows(d.prisma, org, 'public_catalogs');
      const body = parse(PublishWarehouseBody, req.body ?? {});
      if (body.confirm !== w.name) {
        throw badRequest('confirmation_required', `confirm with the catalog's name: {"confirm": "${w.name}"}`, { confirm_with: w.name, field: 'confirm' });
      }
      const prefix = filesPrefixOf(w, body.files_prefix);
      const published = await publishWarehouse(d, w, ctx.principalId, prefix);
      if (published.refused) {
        const overflow = published.refused;
        await writeAudit(d.db, req, { action: 'quota.reject', orgId: w.orgId, targetType: 'warehouse', targetId: w.id, data: { operation: 'warehouse.public', tier: 'public', ...overflow } });
        throw quotaExceeded(`publishing would put ${overflow.current} bytes in the public tier; its allowance is ${overflow.limit_value}`, {
          tier: 'public', scope: quotaScopeOf(w.orgId), ...overflow,
        });
      }
      if (!w.publicSince) {
        await writeAudit(d.db, req, {
          action: 'warehouse.update', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
          data: { changes: { public: true, files_prefix: prefix }, previous: { public: false } },
        });
      } else if (w.publicPrefix !== prefix) {
        await writeAudit(d.db, req, {
          action: 'warehouse.update', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
          data: { changes: { files_prefix: prefix }, previous: { files_prefix: w.publicPrefix } },
        });
      }
      const what = prefix ? `every object under ${prefix} of the table bucket` : 'every object of the table bucket';
      res.json({
        warehouse_id: w.id,
        name: w.name,
        project_id: w.projectId,
        public: true,
        public_since: iso(published.publicSince),
        public_url: publicUrlOf(d.config, { publicSince: published.publicSince, tableBucket: w.tableBucket, publicPrefix: prefix }),
        public_note: PUBLIC_NOTE,
        files_prefix: prefix,
        public_by: published.publicBy,
        policy: published.policy,
        tier: 'public',
        public_storage_bytes: {
          table_bytes: w.usage ? w.usage.tableBytes : null,
          measured_at: iso(w.usage?.measuredAt),
          tier_current: published.tierCurrent,
          tier_limit: published.tierLimit,
        },
        public_read: { bucket: w.tableBucket, prefix, anonymous_get: true, anonymous_list: false, writes: 'refused', catalog: 'private' },
        bucket_quotas: published.bucketQuotas,
        note: !published.changed
          ? 'The catalog was already public this way; nothing changed.'
          : w.publicSince
            ? `Anyone can now read ${what} without credentials, and nothing else.`
            : `Anyone can now read ${what} without credentials.`,
      });
    }],
    delete: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const w = await resolveWarehouse(d.prisma, ctx, String(req.params.warehouse_id));
      requireAdmin(ctx, w, 'making a catalog private');
      const result = await unpublishWarehouse(d, w);
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
        policy_removed: result.policyRemoved,
        tier: 'private',
        storage_bytes: { table_bytes: w.usage?.tableBytes ?? null, blob_bytes: w.usage?.blobBytes ?? null, measured_at: iso(w.usage?.measuredAt) },
        bucket_quotas: result.bucketQuotas,
        note: w.publicSince ? 'Anonymous reads are refused from now on.' : 'The catalog was not public; nothing changed.',
      });
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id/measure', {
    post: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.prisma, w, 'read', 'measuring a catalog');
      const { m, measuredAt, scopeBytes: current, limits } = await measureNow({ ...d, redisPrefix: d.config.redisPrefix }, w);
      const staleAfter = new Date(measuredAt.getTime() + SAMPLE_STALE_AFTER_MS);
      const complete = !m.table.partial && !m.blob.partial;
      const bytes = m.table.bytes + m.blob.bytes;
      const objects = m.table.objects + m.blob.objects;
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
          current, limit: limits.storage_bytes, headroom: Math.max(0, limits.storage_bytes - current),
          measured_at: measuredAt.toISOString(), stale_after: staleAfter.toISOString(), over_limit: current > limits.storage_bytes,
        },
        public_storage: w.publicSince ? { table_bytes: m.table.bytes, limit: limits.public_storage_bytes } : {},
        bucket_quotas: {},
        note: complete
          ? 'Stored as an on-demand sample; quota enforcement still follows the hourly sweep.'
          : `More than ${MEASURE_PAGE_CAP} listing pages in a bucket: bytes is a lower bound. Quota enforcement still follows the hourly sweep.`,
      });
    }],
  });
}
