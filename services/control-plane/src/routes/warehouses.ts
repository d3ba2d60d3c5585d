import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import { z } from 'zod';
import { HttpError, badRequest, conflict, idempotent, notImplemented, parse, route, withTransaction, writeAudit } from '@floe/http';
import { PROVISIONING_RETRY_SECONDS, PROVISIONING_WINDOW_SECONDS, QUEUES } from '@floe/queues';
import { bucketOwnerPart, StorageError } from '@floe/storage';
import type { AccessContext } from '../access/context';
import { requireLevel } from '../access/require';
import type { ControlPlaneDeps } from '../deps';
import { bucketsFor, isValidCatalogName, suggestCatalogName } from '../domain/catalog-names';
import { FORMAT_VERSIONS, FREE_PLAN, MAINTENANCE_DEFAULTS } from '../domain/plans';
import { probeStorage, probeView, provisionStorage, roleNameOf, storageUidOf } from '../domain/provisioning';
import { resolveProject, resolveWarehouse, type ProjectRow } from '../resolve';
import { scopeStoredBytes } from '../store/usage';
import { visibleWarehouses, warehouseById } from '../store/warehouses';
import { warehouseGetRow, warehouseListRow } from '../views';

// Spec: Warehouses (catalogs) — create, list, get, patch.

const FormatVersion = z.unknown().optional();

const CreateWarehouse = z.object({
  project_id: z.string().min(1),
  name: z.string().min(1),
  default_format_version: FormatVersion,
});

const FORMAT_NOTE = 'Governs only the service\'s own create paths (POST /v1/tables, tool-server create, table import); an engine\'s own CREATE TABLE is honoured as sent; existing tables are unchanged.';

export function parseFormatVersion(v: unknown, field = 'default_format_version'): 2 | 3 {
  if (v === 2 || v === 3) return v;
  if (v === '2' || v === '3') return Number(v) as 2 | 3;
  throw badRequest('invalid_value', `${field} must be 2 or 3`, { field, versions: FORMAT_VERSIONS });
}

export function mountWarehouses(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/warehouses', {
    post: [...d.authed, idempotent(d.idempotency, 'POST /v1/warehouses'), async (req, res) => {
      const ctx = req.access!;
      const body = parse(CreateWarehouse, req.body);
      const project = await resolveProject(d.db, ctx, body.project_id);
      const formatVersion = body.default_format_version === undefined ? 2 : parseFormatVersion(body.default_format_version);
      const answer = await createWarehouse(d, ctx, project, { name: body.name, formatVersion, requestId: req.requestId });
      await writeAudit(d.db, req, {
        action: 'warehouse.create', orgId: project.orgId, targetType: 'warehouse', targetId: answer.warehouse_id,
        data: { name: answer.name, project_id: project.id, status: answer.status, bucket: answer.bucket },
      });
      res.status(201).json(answer);
    }],
    get: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const asked = typeof req.query.project === 'string' && req.query.project !== '' ? req.query.project : null;
      const project = asked ? await resolveProject(d.db, ctx, asked) : null;
      const rows = await visibleWarehouses(d.db, ctx, project ? 'AND w.project_id = $3' : '', project ? [project.id] : []);
      res.json({
        project: project?.name ?? null,
        project_id: project?.id ?? null,
        catalog_uri: d.config.catalogUrl,
        warehouses: rows.map((w) => warehouseListRow(d.config, w)),
        count: rows.length,
        limit: FREE_PLAN.warehouses_per_project,
        headroom: project ? Math.max(0, FREE_PLAN.warehouses_per_project - (await liveCount(d, project.id))) : null,
      });
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id', {
    get: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.db, req.access!, String(req.params.warehouse_id));
      res.json(warehouseGetRow(d.config, w, await placementOf(d, w.projectId)));
    }],
    // Deletion and teardown come with a later issue; the caller is authenticated first, as on every caller route.
    delete: [...d.authed, () => { throw notImplemented('warehouse deletion'); }],
    patch: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const w = await resolveWarehouse(d.db, ctx, String(req.params.warehouse_id));
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length === 0) {
        throw badRequest('missing_field', 'send {"default_format_version": 2|3}', { field: 'default_format_version' });
      }
      const unknown = Object.keys(body).filter((k) => k !== 'default_format_version');
      if (unknown.length) {
        throw badRequest('invalid_field', `${unknown.join(', ')} cannot be changed here`, { field: unknown[0], accepts: ['default_format_version'] });
      }
      const next = parseFormatVersion(body.default_format_version);
      await requireLevel(d.db, w, 'write', 'changing a catalog setting');
      const previous = w.defaultFormatVersion;
      const changed = next !== previous;
      if (changed) {
        await d.db.query(`UPDATE warehouses SET default_format_version = $2 WHERE id = $1`, [w.id, next]);
        await writeAudit(d.db, req, {
          action: 'warehouse.update', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
          data: { changes: { default_format_version: next }, previous: { default_format_version: previous } },
        });
      }
      const fresh = (await resolveWarehouse(d.db, ctx, w.id));
      res.json({
        ...warehouseGetRow(d.config, fresh, await placementOf(d, w.projectId)),
        updated: changed ? ['default_format_version'] : [],
        previous: { default_format_version: previous },
        format: formatInfo(next),
        note: changed ? FORMAT_NOTE : `default_format_version was already ${next}; nothing changed. ${FORMAT_NOTE}`,
      });
    }],
  });
}

export function formatInfo(v: 2 | 3) {
  return v === 2
    ? { writers: ['spark>=3.3', 'pyiceberg>=0.6', 'duckdb>=1.4', 'trino>=420', 'floe'], readers: ['spark>=3.3', 'pyiceberg>=0.6', 'duckdb>=1.2', 'trino>=420'], note: 'Version 2 is read and written by every current Iceberg engine.' }
    : { writers: ['spark>=4.0+iceberg-1.10', 'pyiceberg>=0.10', 'floe'], readers: ['spark>=4.0+iceberg-1.10', 'pyiceberg>=0.10', 'duckdb>=1.4'], note: 'Version 3 adds row lineage, deletion vectors and geometry types; check that every engine you use reads it.' };
}

async function placementOf(d: ControlPlaneDeps, projectId: string): Promise<{ provider: string; region: string }> {
  const { rows } = await d.db.query<{ provider: string; region: string }>(`SELECT provider, region FROM projects WHERE id = $1`, [projectId]);
  return rows[0] ?? { provider: d.config.provider, region: d.config.region };
}

async function liveCount(d: ControlPlaneDeps, projectId: string): Promise<number> {
  const { rows } = await d.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM warehouses WHERE project_id = $1 AND status IN ('creating', 'provisioning', 'ready')`, [projectId]);
  return rows[0].n;
}

interface CreateInput {
  name: string;
  formatVersion: 2 | 3;
  requestId: string;
}

/**
 * Creates a warehouse: checks, then a `creating` row (which reserves the name
 * and bucket), then the storage, then the probe. A storage outage leaves the
 * `creating` row; the same creator's retry resumes it under the same id.
 */
export async function createWarehouse(d: ControlPlaneDeps, ctx: AccessContext, project: ProjectRow, input: CreateInput) {
  const { name } = input;
  if (!isValidCatalogName(name)) {
    throw badRequest('invalid_name', `${JSON.stringify(name)} is not a valid catalog name: lowercase letters, digits and single underscores, starting with a letter and not ending in _`, {
      field: 'name', suggestion: suggestCatalogName(name),
    });
  }
  let handle: string | null = null;
  if (project.orgId) {
    const { rows } = await d.db.query<{ handle: string }>(`SELECT handle FROM organizations WHERE id = $1`, [project.orgId]);
    handle = rows[0].handle;
  }
  const ownerPart = handle ?? bucketOwnerPart({ principalId: project.ownerId });
  const buckets = bucketsFor(ownerPart, name);
  if (!buckets.ok) {
    throw badRequest('name_too_long_for_bucket', `bucket names are at most 63 characters; with ${ownerPart} a catalog name may have ${buckets.maxNameLength}`, {
      field: 'name', max_name_length: buckets.maxNameLength, bucket_would_be: buckets.bucketWouldBe,
    });
  }

  const id = await reserve(d, ctx, project, { name, table: buckets.table, blob: buckets.blob, formatVersion: input.formatVersion });
  try {
    await provisionStorage(d.storage, d.db, d.keyring, { id, name, tableBucket: buckets.table, blobBucket: buckets.blob });
    await d.secrets.issuePair(d.db, id, id);
  } catch (err) {
    if (err instanceof StorageError) {
      d.logger.warn('warehouse storage could not be made', { request_id: input.requestId, warehouse_id: id, err: err.message });
      throw new HttpError(502, 'storage_error', 'the object store did not complete the catalog\'s storage; retry with the same Idempotency-Key (it is safe)', {
        retry_after_seconds: 5, remedy: 'retry the same request; the catalog is finished where it stopped',
      }, { 'Retry-After': '5' });
    }
    throw err;
  }

  const probe = await probeStorage(d.storage, d.db, d.keyring, { id, tableBucket: buckets.table, blobBucket: buckets.blob });
  const status = probe.ok ? 'ready' : 'provisioning';
  await d.db.query(
    `UPDATE warehouses SET status = $2, provision_until = CASE WHEN $2 = 'provisioning' THEN now() + make_interval(secs => $3) ELSE NULL END WHERE id = $1`,
    [id, status, PROVISIONING_WINDOW_SECONDS],
  );
  if (!probe.ok) {
    const until = new Date(Date.now() + PROVISIONING_WINDOW_SECONDS * 1000).toISOString();
    await d.queues.add(QUEUES.provisioning, 'probe', { warehouse_id: id, until }, { jobId: `provision-${id}`, delay: PROVISIONING_RETRY_SECONDS * 1000 });
  }
  const w = (await warehouseById(d.db, id, ctx.principalId))!;
  return {
    warehouse_id: id,
    name,
    project_id: project.id,
    project: project.name,
    provider: project.provider,
    region: project.region,
    catalog_uri: d.config.catalogUrl,
    warehouse: `s3://${w.tableBucket}/`,
    warehouse_name: w.tableBucket,
    bucket: w.tableBucket,
    blob_bucket: w.blobBucket,
    default_format_version: w.defaultFormatVersion,
    maintenance: MAINTENANCE_DEFAULTS,
    storage_measurement: { status: 'scheduled', in_seconds: 120, then: 'hourly' },
    status,
    storage_probe: probeView(probe, w.tableBucket, w.blobBucket),
    ...(probe.ok ? {} : {
      retry_after_seconds: PROVISIONING_RETRY_SECONDS,
      remedy: `the object store refused the first write; the service retries every ${PROVISIONING_RETRY_SECONDS} s for ${PROVISIONING_WINDOW_SECONDS / 60} minutes and GET /v1/connection answers 503 provisioning until then`,
    }),
  };
}

/** Checks names, limits and quota under a per-scope lock, then inserts (or resumes) the `creating` row. Returns the warehouse id. */
async function reserve(
  d: ControlPlaneDeps, ctx: AccessContext, project: ProjectRow,
  w: { name: string; table: string; blob: string; formatVersion: 2 | 3 },
): Promise<string> {
  try {
    return await withTransaction(d.db, async (client) => {
      const scopeKey = project.orgId ?? project.ownerId;
      await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`warehouses:${scopeKey}`]);
      const { rows: same } = await client.query<{ id: string; status: string; table_bucket: string; created_by: string | null; project_id: string }>(
        `SELECT w.id, w.status, w.table_bucket, w.created_by, w.project_id FROM warehouses w LEFT JOIN projects p ON p.id = w.project_id
          WHERE (w.name = $1 AND ${project.orgId ? 'w.org_id = $2' : 'w.org_id IS NULL AND p.owner_id = $2'} AND w.status IN ('creating', 'provisioning', 'ready', 'deleting'))
             OR w.table_bucket = $3`,
        [w.name, scopeKey, w.table],
      );
      const existing = same[0];
      if (existing) {
        if (existing.status === 'creating' && existing.created_by === ctx.principalId && existing.project_id === project.id) return existing.id;
        if (existing.status === 'deleted') {
          throw conflict('bucket_leftover_from_deletion', `the bucket ${existing.table_bucket} of a deleted catalog still holds this name`, {
            bucket: existing.table_bucket, remedy: 'choose another name, or ask the operator to remove the leftover bucket',
          });
        }
        if (existing.status === 'deleting') {
          throw new HttpError(409, 'name_reserved_until_teardown', `a catalog named ${w.name} is being deleted; its name is free once teardown ends`,
            { retry_after_seconds: 5, bucket: existing.table_bucket }, { 'Retry-After': '5' });
        }
        if (existing.status === 'creating') {
          throw new HttpError(409, 'creation_in_progress', `a catalog named ${w.name} is being created`, { retry_after_seconds: 5 }, { 'Retry-After': '5' });
        }
        throw conflict('already_exists', `a catalog named ${w.name} already exists${project.orgId ? ' in this organisation' : ''}`, {
          bucket: existing.table_bucket, warehouse_id: existing.id,
        });
      }
      const { rows: counted } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM warehouses WHERE project_id = $1 AND status IN ('creating', 'provisioning', 'ready')`, [project.id]);
      if (counted[0].n >= FREE_PLAN.warehouses_per_project) {
        throw conflict('limit_exceeded', `a project holds at most ${FREE_PLAN.warehouses_per_project} catalogs`, {
          limit: 'warehouses_per_project', limit_value: FREE_PLAN.warehouses_per_project, current: counted[0].n,
        });
      }
      const bytes = await scopeStoredBytes(d.db, project.orgId, project.ownerId);
      if (bytes >= FREE_PLAN.storage_bytes) {
        throw conflict('quota_exceeded', 'the storage limit is reached; delete data or ask for a higher limit', {
          current: bytes, limit_value: FREE_PLAN.storage_bytes, scope: project.orgId ? 'organization' : 'project',
        });
      }
      const id = randomUUID();
      const uid = storageUidOf(id);
      await client.query(
        `INSERT INTO warehouses (id, name, project_id, org_id, table_bucket, blob_bucket, default_format_version, status,
           storage_uid, storage_access_key, storage_secret_key, storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name, created_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'creating', $8, '', '', $9, '', '', $10, $11)`,
        [id, w.name, project.id, project.orgId, w.table, w.blob, w.formatVersion, uid, `${uid}-ro`, roleNameOf(id), ctx.principalId],
      );
      return id;
    });
  } catch (err) {
    // The refusal is audited outside the rolled-back transaction.
    if (err instanceof HttpError && err.code === 'quota_exceeded') {
      await writeAudit(d.db, null, {
        action: 'quota.reject', actorId: ctx.principalId, actorKind: ctx.kind, orgId: project.orgId, targetType: 'project', targetId: project.id,
        data: { operation: 'warehouse.create', current: err.extras.current, limit_value: err.extras.limit_value },
      });
    }
    throw err;
  }
}
