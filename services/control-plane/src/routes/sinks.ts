import type { Express } from 'express';
import { z } from 'zod';
import { requireLevel } from '@floe/accounts';
import { resolveWarehouse } from '@floe/catalogs';
import { badRequest, notFound, notImplemented, parse, route, writeAudit } from '@floe/http';
import { requireRecentSignIn } from '../access/load';
import type { ControlPlaneDeps } from '../deps';
import { createSink, deleteSink, listSinks, resolveSink } from '../domain/sinks/sinks';
import { catalogTables } from '../domain/tables/catalog-tables';
import { sinkResponse } from '../sink-responses';

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
  const urls = { ingestUrl: d.config.ingestUrl, baseUrl: d.config.baseUrl };
  // While sinks are switched off for the deployment, every sink route answers 404 not_found.
  app.use('/v1/sinks', (_req, _res, next) => next(d.config.sinksEnabled ? undefined : notFound('not_found', 'ingest sinks are switched off on this deployment')));

  route(app, '/v1/sinks', {
    post: [...d.authed, requireRecentSignIn(d.prisma), async (req, res) => {
      // validate
      const body = parse(CreateSink, req.body);
      if (!NAME.test(body.name)) {
        throw badRequest('bad_name', 'a sink name is 1-63 lowercase letters, digits, _ and -, starting with a letter', { field: 'name' });
      }
      const which = body.warehouse_id ?? body.warehouse;
      if (!which) throw badRequest('missing_field', 'warehouse is required (id or name)', { field: 'warehouse' });
      const dot = body.table.lastIndexOf('.');
      if (dot <= 0 || dot === body.table.length - 1) throw badRequest('invalid_value', 'table is <namespace>.<table>', { field: 'table' });
      // authorize
      const w = await resolveWarehouse(d.prisma, req.access!, which);
      await requireLevel(d.prisma, w, 'write', 'creating a sink');
      // act
      const { sink, sendKey } = await createSink({ prisma: d.prisma, tables }, w, {
        name: body.name, namespace: body.table.slice(0, dot), tableName: body.table.slice(dot + 1), rollSeconds: body.roll_seconds,
        rollBytes: body.roll_bytes, inactivitySeconds: body.inactivity_seconds, createdBy: req.access!.principalId,
      });
      await writeAudit(d.db, req, { action: 'sink.create', orgId: w.orgId, targetType: 'sink', targetId: sink.id, data: { name: body.name, table: body.table, warehouse_id: w.id } });
      // answer
      res.status(201).json({ ...sinkResponse(urls, sink, w), send_key: sendKey, send_key_note: 'Shown once; only a hash is kept. It is accepted by the send route only.' });
    }],
    get: [...d.authed, async (req, res) => {
      const which = str(req.query.warehouse) ?? str(req.query.warehouse_id);
      const sinks = await listSinks(d, req.access!, which, req.query.include_deleted === 'true');
      res.json({
        count: sinks.length,
        sinks: sinks.map(({ sink, w }) => sinkResponse(urls, sink, w)),
        note: 'Send keys are shown once, at creation; lost keys are replaced by deleting and re-creating the sink.',
      });
    }],
  });

  route(app, '/v1/sinks/:sink_id', {
    // Changing roll settings is not built yet (the spec gives no shape for it); the caller is authenticated first.
    patch: [...d.authed, () => { throw notImplemented('sink settings'); }],
    get: [...d.authed, async (req, res) => {
      const { sink, w } = await resolveSink(d, req.access!, String(req.params.sink_id), 'read');
      res.json(sinkResponse(urls, sink, w));
    }],
    delete: [...d.authed, requireRecentSignIn(d.prisma), async (req, res) => {
      const { sink, w } = await resolveSink(d, req.access!, String(req.params.sink_id), 'write');
      // The send key is refused from this statement on; waiting batches are discarded at the roller's next tick.
      const after = await deleteSink(d, sink);
      await writeAudit(d.db, req, { action: 'sink.delete', orgId: w.orgId, targetType: 'sink', targetId: sink.id, data: { name: sink.name, pending_batches: sink.counts.pendingBatches } });
      res.status(202).json({
        ...sinkResponse(urls, after, w),
        pending_batches_discarded: sink.counts.pendingBatches,
        note: 'The send key is refused from now on; waiting batches are discarded at the roller\'s next tick; the table is untouched. Reject files age out after 7 days.',
      });
    }],
  });
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
