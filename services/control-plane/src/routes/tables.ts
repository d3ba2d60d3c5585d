import type { Express, Request } from 'express';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { z } from 'zod';
import { badRequest, HttpError, idempotent, parse, quotaExceeded, quotaScopeOf, route, writeAudit } from '@floe/http';
import { requireLevel } from '../access/require';
import { CatalogFailure, asCatalogError, type CatalogClient } from '../catalog-client';
import type { ControlPlaneDeps } from '../deps';
import { FORMAT_VERSIONS, FREE_PLAN } from '../domain/plans';
import { catalogTables, isAddressable, nsName, nsPath } from '../domain/catalog-tables';
import { currentSchema, hasGeoColumn, tableView, v3Columns } from '../domain/table-view';
import { resolveWarehouse } from '../resolve';
import { readWriteKeys } from '../store/storage-keys';
import { scopeStoredBytes } from '../store/usage';
import type { VisibleWarehouse } from '../store/warehouses';
import { formatInfo } from '../domain/formats';

// Spec: Tables, credentials, connection — the routes that act on tables
// through the Iceberg REST catalog as the warehouse's own identity.

type Json = Record<string, any>;


// The schema as far as this route reads it (the v3 and geometry checks walk
// its fields); what the types mean is the catalog's to judge, and an unknown
// type comes back as its catalog_error.
const TableSchema = z.looseObject({
  type: z.literal('struct'),
  fields: z.array(z.looseObject({
    id: z.number().int(),
    name: z.string(),
    required: z.boolean(),
    type: z.union([z.string(), z.looseObject({})]),
  })),
});

const CreateTable = z.object({
  warehouse_id: z.string().min(1),
  namespace: z.string().min(1).max(255),
  name: z.string().min(1).max(255),
  schema: TableSchema,
  format_version: z.unknown().optional(),
});

const TableRef = z.object({
  warehouse_id: z.string().min(1),
  namespace: z.string().min(1),
  name: z.string().min(1),
});

const PROPERTY_KEY = /^[A-Za-z0-9._-]{1,128}$/;
const RESERVED_PROPERTIES = ['format-version'];

export function mountTables(app: Express, d: ControlPlaneDeps): void {
  const catalog = d.catalog;

  /** A warehouse from `warehouse_id` or its alias `warehouse` (query or body). */
  const warehouseOf = async (req: Request, source: Json): Promise<VisibleWarehouse> => {
    const which = str(source.warehouse_id) ?? str(source.warehouse);
    if (!which) throw badRequest('missing_field', 'warehouse_id is required (id or name)', { field: 'warehouse_id' });
    const w = await resolveWarehouse(d.db, req.access!, which);
    await requireLevel(d.db, w, 'read', 'reading tables');
    if (w.status !== 'ready') {
      throw new HttpError(503, 'provisioning', `catalog ${w.name} is still being provisioned`, { retry_after_seconds: 30 }, { 'Retry-After': '30' });
    }
    return w;
  };

  const { namespaces, tablesIn, namespaceNotFound, load } = catalogTables(catalog);

  route(app, '/v1/namespaces', {
    get: [...d.authed, async (req, res) => {
      const w = await warehouseOf(req, req.query);
      const all = await namespaces(w).catch((e) => { throw asCatalogError(e); });
      res.json({ warehouse: w.name, warehouse_id: w.id, namespaces: all.map((ns) => ({ namespace: nsName(ns) })) });
    }],
  });

  route(app, '/v1/tables', {
    get: [...d.authed, async (req, res) => {
      const w = await warehouseOf(req, req.query);
      const asked = str(req.query.namespace);
      let searched: string[][];
      if (asked) {
        const exists = await catalog.request(w.id, 'HEAD', `/namespaces/${nsPath(asked)}`).then(() => true, (e) => {
          if (e instanceof CatalogFailure && e.status === 404) return false;
          throw asCatalogError(e);
        });
        if (!exists) throw await namespaceNotFound(w, asked);
        searched = [asked.split('.')];
      } else {
        // A namespace no path can name cannot be searched; it must not fail the listing of the rest.
        searched = (await namespaces(w).catch((e) => { throw asCatalogError(e); })).filter(isAddressable);
      }
      const tables: Array<{ namespace: string; name: string; table: string }> = [];
      for (const levels of searched) {
        const ns = nsName(levels);
        for (const name of await tablesIn(w, levels).catch((e) => { throw asCatalogError(e); })) tables.push({ namespace: ns, name, table: `${ns}.${name}` });
      }
      res.json({ warehouse: w.name, warehouse_id: w.id, namespaces_searched: searched.map(nsName), tables });
    }],
    post: [...d.authed, idempotent(d.idempotency, 'POST /v1/tables'), async (req, res) => {
      const raw = (req.body ?? {}) as Json;
      const body = parse(CreateTable, { ...raw, warehouse_id: str(raw.warehouse_id) ?? str(raw.warehouse) ?? raw.warehouse_id });
      const w = await warehouseOf(req, body);
      await requireLevel(d.db, w, 'write', 'creating a table');
      const requested = body.format_version === undefined || body.format_version === null ? null : body.format_version;
      if (requested !== null && requested !== 2 && requested !== 3) {
        throw badRequest('invalid_value', 'format_version must be 2 or 3', { field: 'format_version', versions: FORMAT_VERSIONS });
      }
      const version = (requested ?? w.defaultFormatVersion) as 2 | 3;
      if (version === 2 && hasGeoColumn(body.schema)) {
        throw badRequest('invalid_value', 'geometry and geography columns need format version 3', {
          field: 'schema', remedy: 'send "format_version": 3, or set the catalog default with PATCH /v1/warehouses/{id}',
        });
      }
      await refuseOverQuota(d, req, w, 'table.create');
      const created = await createThroughCatalog(catalog, w, body.namespace, body.name, body.schema, version);
      const m = created.metadata as Json;
      const real = Number(m['format-version']) as 2 | 3;
      const info = formatInfo(real);
      await writeAudit(d.db, req, { action: 'table.create', orgId: w.orgId, targetType: 'table', targetId: m['table-uuid'], data: { warehouse_id: w.id, table: `${body.namespace}.${body.name}`, format_version: real } });
      res.status(201).json({
        table: `${body.namespace}.${body.name}`,
        warehouse_id: w.id,
        warehouse: w.name,
        namespace: body.namespace,
        name: body.name,
        table_uuid: m['table-uuid'],
        location: m.location,
        format_version: real,
        format_version_requested: requested ?? null,
        format_version_source: requested === null ? 'catalog_default' : 'request',
        format_version_honoured: real === version,
        writers: info.writers,
        readers: info.readers,
        note: info.note,
        ...(real === 3 ? { warnings: v3Warnings(), v3_columns: v3Columns(currentSchema(m)) } : {}),
      });
    }],
  });

  route(app, '/v1/table', {
    get: [...d.authed, async (req, res) => {
      const ref = parse(TableRef, { ...req.query, warehouse_id: str(req.query.warehouse_id) ?? str(req.query.warehouse) }, 'query');
      const w = await warehouseOf(req, ref);
      const loaded = await load(w, ref.namespace, ref.name);
      const s3 = d.storage.s3As(await readWriteKeys(d.db, d.keyring, w.id));
      const read = async (path: string) => {
        const key = path.replace(/^s3a?:\/\/[^/]+\//, '');
        const out = await s3.send(new GetObjectCommand({ Bucket: w.tableBucket, Key: key }));
        return new Uint8Array(await out.Body!.transformToByteArray());
      };
      const view = await tableView(ref.namespace, ref.name, loaded, read);
      const info = formatInfo(view.format_version === 3 ? 3 : 2);
      res.json({ ...view, warehouse: w.name, warehouse_id: w.id, writers: info.writers, readers: info.readers, note: info.note, ...(view.format_version === 3 ? { warnings: v3Warnings() } : {}) });
    }],
    patch: [...d.authed, async (req, res) => {
      const body = (req.body ?? {}) as Json;
      const ref = parse(TableRef, { ...body, warehouse_id: str(body.warehouse_id) ?? str(body.warehouse) });
      const set = propertiesToSet(body.properties);
      const remove = keysToRemove(body.remove);
      if (Object.keys(set).length === 0 && remove.length === 0) {
        throw badRequest('missing_field', 'send properties{} to set and/or remove[] to remove', { field: 'properties' });
      }
      const w = await warehouseOf(req, ref);
      await requireLevel(d.db, w, 'write', 'changing table properties');
      const before = await load(w, ref.namespace, ref.name);
      const previous = (before.metadata.properties ?? {}) as Record<string, string>;
      const updates: Json[] = [];
      if (Object.keys(set).length) updates.push({ action: 'set-properties', updates: set });
      if (remove.length) updates.push({ action: 'remove-properties', removals: remove });
      let after: Json;
      try {
        after = (await catalog.request(w.id, 'POST', `/namespaces/${nsPath(ref.namespace)}/tables/${encodeURIComponent(ref.name)}`, {
          identifier: { namespace: ref.namespace.split('.'), name: ref.name },
          requirements: [{ type: 'assert-table-uuid', uuid: before.metadata['table-uuid'] }],
          updates,
        }))!;
      } catch (err) {
        throw asCatalogError(err);
      }
      const touched = [...Object.keys(set), ...remove];
      await writeAudit(d.db, req, {
        action: 'table.update', orgId: w.orgId, targetType: 'table', targetId: before.metadata['table-uuid'],
        data: { warehouse_id: w.id, table: `${ref.namespace}.${ref.name}`, set, removed: remove, previous: Object.fromEntries(touched.map((k) => [k, previous[k] ?? null])) },
      });
      res.json({
        table: `${ref.namespace}.${ref.name}`,
        namespace: ref.namespace,
        name: ref.name,
        warehouse: w.name,
        warehouse_id: w.id,
        properties: after.metadata.properties ?? {},
        set: Object.keys(set),
        removed: remove,
        metadata_location: after['metadata-location'],
      });
    }],
  });

  route(app, '/v1/credentials', {
    post: [...d.authed, async (req, res) => {
      const body = (req.body ?? {}) as Json;
      const ref = parse(TableRef, { ...body, warehouse_id: str(body.warehouse_id) ?? str(body.warehouse) });
      const w = await warehouseOf(req, ref);
      if (w.access.level !== 'write') {
        await requireLevel(d.db, w, 'write', 'storage credentials (read holders use the read-only catalog credential from GET /v1/connection?level=read)');
      }
      await refuseOverQuota(d, req, w, 'credentials.vend');
      const loaded = await load(w, ref.namespace, ref.name, { 'X-Iceberg-Access-Delegation': 'vended-credentials' });
      const c = (loaded['storage-credentials']?.[0]?.config ?? loaded.config ?? {}) as Record<string, string>;
      const location = String(loaded.metadata.location);
      await writeAudit(d.db, req, { action: 'credentials.vend', orgId: w.orgId, targetType: 'table', targetId: loaded.metadata['table-uuid'], data: { warehouse_id: w.id, table: `${ref.namespace}.${ref.name}` } });
      res.json({
        warehouse_id: w.id,
        warehouse: w.name,
        table: `${ref.namespace}.${ref.name}`,
        location,
        bucket: w.tableBucket,
        prefix: `${location.replace(/^s3a?:\/\/[^/]+\//, '')}/`,
        endpoint: d.config.s3Url,
        region: d.config.s3.region,
        path_style: true,
        credentials: {
          access_key_id: c['s3.access-key-id'],
          secret_access_key: c['s3.secret-access-key'],
          session_token: c['s3.session-token'],
          expires_at: c['s3.session-token-expires-at-ms'] ? new Date(Number(c['s3.session-token-expires-at-ms'])).toISOString() : null,
        },
        note: 'A storage session confined to this table\'s location; it runs out within 900 s.',
      });
    }],
  });
}

async function createThroughCatalog(catalog: CatalogClient, w: VisibleWarehouse, ns: string, name: string, schema: Json, version: 2 | 3): Promise<Json> {
  const create = () => catalog.request(w.id, 'POST', `/namespaces/${nsPath(ns)}/tables`, { name, schema, properties: { 'format-version': String(version) } });
  try {
    return (await create())!;
  } catch (err) {
    if (!(err instanceof CatalogFailure && err.type === 'NoSuchNamespaceException')) throw asCatalogError(err);
  }
  // The namespace is created on demand, each missing level in turn (a concurrent creation is as good as ours).
  const levels = ns.split('.');
  for (let i = 1; i <= levels.length; i++) {
    await catalog.request(w.id, 'POST', '/namespaces', { namespace: levels.slice(0, i), properties: {} }).catch((e) => {
      if (!(e instanceof CatalogFailure && e.status === 409)) throw asCatalogError(e);
    });
  }
  try {
    return (await create())!;
  } catch (err) {
    throw asCatalogError(err);
  }
}

/** Error rule 4: over the storage limit, creation and credential vending answer 409 quota_exceeded (reads still work). */
async function refuseOverQuota(d: ControlPlaneDeps, req: Request, w: VisibleWarehouse, operation: string): Promise<void> {
  const current = await scopeStoredBytes(d.db, w.orgId, w.projectOwner);
  if (current < FREE_PLAN.storage_bytes) return;
  await writeAudit(d.db, req, { action: 'quota.reject', orgId: w.orgId, targetType: 'warehouse', targetId: w.id, data: { operation, current, limit_value: FREE_PLAN.storage_bytes } });
  throw quotaExceeded('the storage limit is reached; reading still works', { current, limit_value: FREE_PLAN.storage_bytes, scope: quotaScopeOf(w.orgId) });
}

function propertiesToSet(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('invalid_value', 'properties must be an object of key: value', { field: 'properties' });
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw as Json)) {
    checkKey(k, `properties.${k}`);
    if (v !== null && typeof v === 'object') throw badRequest('invalid_value', `properties.${k}: nested values are refused; send a string`, { field: `properties.${k}` });
    const s = String(v);
    if (s.length > 32768) throw badRequest('invalid_value', `properties.${k}: at most 32768 characters`, { field: `properties.${k}` });
    out[k] = s;
  }
  return out;
}

function keysToRemove(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.some((k) => typeof k !== 'string')) throw badRequest('invalid_value', 'remove must be a list of property keys', { field: 'remove' });
  for (const k of raw as string[]) checkKey(k, 'remove');
  return raw as string[];
}

function checkKey(k: string, field: string): void {
  if (RESERVED_PROPERTIES.includes(k)) {
    throw badRequest('invalid_value', `${k} is reserved; the format version changes only through an engine's upgrade`, { field, reserved: RESERVED_PROPERTIES });
  }
  if (!PROPERTY_KEY.test(k)) throw badRequest('invalid_value', `property keys are 1-128 characters of letters, digits, . _ -`, { field });
}

function v3Warnings(): string[] {
  return ['Format version 3: check that every engine that reads this table supports v3 (see GET /v1/config/formats).', 'Version 3 tables are not compacted yet; snapshot expiry and orphan cleanup do run.'];
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
