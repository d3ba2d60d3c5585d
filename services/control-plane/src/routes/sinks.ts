import { randomBytes } from 'node:crypto';
import type { Express } from 'express';
import { z } from 'zod';
import { generateSendKey } from '@floe/auth';
import { DEFAULT_DEVICE_OPTIONS, SINK_TABLE_CHANGES, deviceOptionsView, rejectsPrefix, sinkPrefix } from '@floe/ingest';
import { badRequest, conflict, notFound, notImplemented, parse, route, writeAudit, type SqlClient } from '@floe/http';
import type { AccessContext } from '../access/context';
import { atLeast } from '../access/levels';
import { requireLevel } from '../access/require';
import type { ControlPlaneDeps } from '../deps';
import { catalogTables } from '../domain/catalog-tables';
import { resolveWarehouse } from '../resolve';
import { sinksOf, type SinkRecord } from '../store/sinks';
import { visibleWarehouses, type VisibleWarehouse } from '../store/warehouses';
import { iso } from '../views';

// Spec: Ingest sinks — the records (create, list, get, delete). The send
// route itself is served by the ingest gateway.

const MIB = 1024 * 1024;
const NAME = /^[a-z][a-z0-9_-]{0,62}$/;

const CreateSink = z.object({
  name: z.string(),
  table: z.string().min(1),
  warehouse: z.string().min(1).optional(),
  warehouse_id: z.string().min(1).optional(),
  roll_seconds: z.number().int().min(60, 'at least 60').default(300),
  roll_bytes: z.number().int().min(32 * MIB, 'from 33554432 (32 MiB)').max(64 * MIB, 'to 67108864 (64 MiB)').default(64 * MIB),
  inactivity_seconds: z.number().int().min(1).nullable().default(null),
});

export function mountSinks(app: Express, d: ControlPlaneDeps): void {
  const tables = catalogTables(d.catalog);
  // While sinks are switched off for the deployment, every sink route answers 404 not_found.
  app.use('/v1/sinks', (_req, _res, next) => next(d.config.sinksEnabled ? undefined : notFound('not_found', 'ingest sinks are switched off on this deployment')));

  route(app, '/v1/sinks', {
    post: [...d.authed, async (req, res) => {
      const body = parse(CreateSink, req.body);
      if (!NAME.test(body.name)) {
        throw badRequest('bad_name', 'a sink name is 1-63 lowercase letters, digits, _ and -, starting with a letter', { field: 'name' });
      }
      const which = body.warehouse_id ?? body.warehouse;
      if (!which) throw badRequest('missing_field', 'warehouse is required (id or name)', { field: 'warehouse' });
      const dot = body.table.lastIndexOf('.');
      if (dot <= 0 || dot === body.table.length - 1) throw badRequest('invalid_value', 'table is <namespace>.<table>', { field: 'table' });
      const namespace = body.table.slice(0, dot);
      const tableName = body.table.slice(dot + 1);
      const w = await resolveWarehouse(d.db, req.access!, which);
      await requireLevel(d.db, w, 'write', 'creating a sink');
      const loaded = await tables.load(w, namespace, tableName);
      const m = loaded.metadata as Record<string, any>;
      const spec = (m['partition-specs'] ?? []).find((s: any) => s['spec-id'] === m['default-spec-id']);
      if (spec && (spec.fields ?? []).length > 0) {
        throw conflict('partitioned_table_unsupported', `${body.table} is partitioned; a sink appends to unpartitioned tables only`, { table: body.table });
      }
      const key = generateSendKey();
      const id = `snk_${randomBytes(12).toString('hex')}`;
      await insertSink(d.db, {
        id, name: body.name, warehouseId: w.id, namespace, tableName, rollSeconds: body.roll_seconds, rollBytes: body.roll_bytes,
        inactivitySeconds: body.inactivity_seconds, keyId: key.keyId, keyHash: key.secretHash, createdBy: req.access!.principalId,
      });
      await writeAudit(d.db, req, { action: 'sink.create', orgId: w.orgId, targetType: 'sink', targetId: id, data: { name: body.name, table: body.table, warehouse_id: w.id } });
      const [sink] = await sinksOf(d.db, [w.id], false, 'AND s.id = $2', [id]);
      res.status(201).json({ ...sinkView(d, sink, w), send_key: key.token, send_key_note: 'Shown once; only a hash is kept. It is accepted by the send route only.' });
    }],
    get: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const which = str(req.query.warehouse) ?? str(req.query.warehouse_id);
      const warehouses = which ? [await resolveWarehouse(d.db, ctx, which)] : await visibleWarehouses(d.db, ctx);
      const readable = warehouses.filter((w) => atLeast(w.access.level, 'read'));
      if (which && !readable.length) await requireLevel(d.db, warehouses[0], 'read', 'listing sinks');
      const byId = new Map(readable.map((w) => [w.id, w]));
      const sinks = await sinksOf(d.db, [...byId.keys()], req.query.include_deleted === 'true');
      res.json({
        count: sinks.length,
        sinks: sinks.map((s) => sinkView(d, s, byId.get(s.warehouseId)!)),
        note: 'Send keys are shown once, at creation; lost keys are replaced by deleting and re-creating the sink.',
      });
    }],
  });

  route(app, '/v1/sinks/:sink_id', {
    // Changing roll settings is not built yet (the spec gives no shape for it); the caller is authenticated first.
    patch: [...d.authed, () => { throw notImplemented('sink settings'); }],
    get: [...d.authed, async (req, res) => {
      const { sink, w } = await resolveSink(d, req.access!, String(req.params.sink_id), 'read');
      res.json(sinkView(d, sink, w));
    }],
    delete: [...d.authed, async (req, res) => {
      const { sink, w } = await resolveSink(d, req.access!, String(req.params.sink_id), 'write');
      // The send key is refused from this statement on; waiting batches are discarded at the roller's next tick.
      await d.db.query(`UPDATE sinks SET state = 'deleted', deleted_at = COALESCE(deleted_at, now()) WHERE id = $1`, [sink.id]);
      await writeAudit(d.db, req, { action: 'sink.delete', orgId: w.orgId, targetType: 'sink', targetId: sink.id, data: { name: sink.name, pending_batches: sink.counts.pendingBatches } });
      const [after] = await sinksOf(d.db, [w.id], true, 'AND s.id = $2', [sink.id]);
      res.status(202).json({
        ...sinkView(d, after, w),
        pending_batches_discarded: sink.counts.pendingBatches,
        note: 'The send key is refused from now on; waiting batches are discarded at the roller\'s next tick; the table is untouched. Reject files age out after 7 days.',
      });
    }],
  });
}

async function insertSink(db: SqlClient, s: {
  id: string; name: string; warehouseId: string; namespace: string; tableName: string; rollSeconds: number; rollBytes: number;
  inactivitySeconds: number | null; keyId: string; keyHash: string; createdBy: string;
}): Promise<void> {
  const { rows } = await db.query<{ name: string; namespace: string; table_name: string }>(
    `SELECT name, namespace, table_name FROM sinks WHERE warehouse_id = $1 AND state <> 'deleted' AND (name = $2 OR (namespace = $3 AND table_name = $4))`,
    [s.warehouseId, s.name, s.namespace, s.tableName]);
  const sameTable = rows.find((r) => r.namespace === s.namespace && r.table_name === s.tableName);
  if (sameTable) throw conflict('sink_exists', `${s.namespace}.${s.tableName} already has a sink (${sameTable.name}); one sink per table`, { sink: sameTable.name });
  if (rows.length) throw conflict('already_exists', `a sink named ${s.name} already exists in this catalog`, { field: 'name' });
  await db.query(
    `INSERT INTO sinks (id, name, warehouse_id, namespace, table_name, roll_seconds, roll_bytes, inactivity_seconds, send_key_id, send_key_hash, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [s.id, s.name, s.warehouseId, s.namespace, s.tableName, s.rollSeconds, s.rollBytes, s.inactivitySeconds, s.keyId, s.keyHash, s.createdBy]);
}

/** A sink by id or name among the catalogs the caller holds `level` on. */
export async function resolveSink(d: ControlPlaneDeps, ctx: AccessContext, idOrName: string, level: 'read' | 'write'): Promise<{ sink: SinkRecord; w: VisibleWarehouse }> {
  const warehouses = await visibleWarehouses(d.db, ctx);
  const byId = new Map(warehouses.filter((w) => atLeast(w.access.level, 'read')).map((w) => [w.id, w]));
  const found = await sinksOf(d.db, [...byId.keys()], false, 'AND (s.id = $2 OR s.name = $2)', [idOrName]);
  const exact = found.find((s) => s.id === idOrName);
  if (!exact && found.length > 1) {
    throw conflict('ambiguous_name', `${found.length} sinks are named ${idOrName}; use a sink_id`, {
      candidates: found.map((s) => ({ sink_id: s.id, name: s.name, warehouse_id: s.warehouseId, warehouse_name: byId.get(s.warehouseId)!.name })),
    });
  }
  const sink = exact ?? found[0];
  if (!sink) throw notFound('sink_not_found', `no sink with id or name ${JSON.stringify(idOrName)}`);
  const w = byId.get(sink.warehouseId)!;
  await requireLevel(d.db, w, level, level === 'write' ? 'changing a sink' : 'reading a sink');
  return { sink, w };
}

export function sinkView(d: ControlPlaneDeps, s: SinkRecord, w: VisibleWarehouse) {
  const behind = s.counts.oldestPending ? Math.round((Date.now() - new Date(s.counts.oldestPending).getTime()) / 1000) : 0;
  return {
    sink_id: s.id,
    name: s.name,
    table: `${s.namespace}.${s.tableName}`,
    warehouse_id: w.id,
    warehouse_name: w.name,
    bucket: w.blobBucket,
    state: s.state,
    roll: { seconds: s.rollSeconds, bytes: s.rollBytes, inactivity_seconds: s.inactivitySeconds, count: s.counts.rolls },
    prefix: sinkPrefix(s.id),
    ingest_url: d.config.ingestUrl,
    send_url: `${d.config.baseUrl}/v1/sinks/${s.id}`,
    send_key_id: s.sendKeyId,
    table_changes: { ...SINK_TABLE_CHANGES, applied: s.tableChangesApplied },
    lag: { batches_waiting: s.counts.pendingBatches, bytes_waiting: s.counts.pendingBytes, oldest_waiting_at: iso(s.counts.oldestPending), seconds_behind: behind },
    received: {
      batches: s.received.batches, device_batches: s.received.deviceBatches, rows: s.received.rows, bytes: s.received.storedBytes,
      ingest_bytes: s.received.ingestBytes, rejected_elements: s.received.rejected,
    },
    device: s.device.token
      ? { enabled: true, url: `${d.config.ingestUrl}/d/<token shown once>`, token_created_at: iso(s.device.tokenAt), options: deviceOptionsView(s.device.options ?? DEFAULT_DEVICE_OPTIONS) }
      : { enabled: false },
    last_roll: s.lastRoll,
    rejects: { rows: s.rejectedRows, files: s.rejectFiles, prefix: rejectsPrefix(s.id), bucket: w.blobBucket, age_out_days: 7 },
    disabled_reason: s.disabledReason,
    iam_writes: [],
    created_at: iso(s.createdAt),
    deleted_at: iso(s.deletedAt),
  };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
