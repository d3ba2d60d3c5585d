import type { Express } from 'express';
import type { z } from 'zod';
import { ChangeSinkBody, CreateSinkBody } from '@floe/api';
import { requireLevel } from '@floe/accounts';
import { resolveWarehouse } from '@floe/catalogs';
import { badRequest, notFound, parse, route, writeAudit } from '@floe/http';
import { requireRecentSignIn } from '../access/load';
import type { ControlPlaneDeps } from '../deps';
import { createSink, deleteSink, listSinks, resolveSink } from '../domain/sinks/sinks';
import { changeSink } from '../domain/sinks/sinks-update';
import { catalogTables } from '../domain/tables/catalog-tables';
import { sinkResponse } from '../sink-responses';

// Spec: Ingest sinks — the records (create, list, get, change, delete). The
// send route itself is served by the ingest gateway. The change (PATCH) is in
// the spec's error index only; its shape is Floe's (docs/api.md).

const NAME = /^[a-z][a-z0-9_-]{0,62}$/;

const PATCH_FIELDS = Object.keys(ChangeSinkBody.shape);

function requireSinkName(name: string): void {
  if (!NAME.test(name)) throw badRequest('bad_name', 'a sink name is 1-63 lowercase letters, digits, _ and -, starting with a letter', { field: 'name' });
}

/** A change's body: an object of at least one known field (400 `missing_field`, `invalid_value` with `accepted`), each valid. */
function parsePatch(raw: unknown): z.infer<typeof ChangeSinkBody> {
  const body = raw ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('invalid_value', 'send a JSON object of the settings to change', { field: 'body', accepted: PATCH_FIELDS });
  const keys = Object.keys(body);
  if (!keys.length) throw badRequest('missing_field', `send one or more of ${PATCH_FIELDS.join(', ')}`, { field: PATCH_FIELDS[0], accepted: PATCH_FIELDS });
  const unknown = keys.filter((k) => !PATCH_FIELDS.includes(k));
  if (unknown.length) throw badRequest('invalid_value', `${unknown.join(', ')} cannot be changed here`, { field: unknown[0], accepted: PATCH_FIELDS });
  const parsed = parse(ChangeSinkBody, body);
  if (parsed.name !== undefined) requireSinkName(parsed.name);
  return parsed;
}

export function mountSinks(app: Express, d: ControlPlaneDeps): void {
  const tables = catalogTables(d.catalog);
  const urls = { ingestUrl: d.config.ingestUrl, baseUrl: d.config.baseUrl };
  // While sinks are switched off for the deployment, every sink route answers 404 not_found.
  app.use('/v1/sinks', (_req, _res, next) => next(d.config.sinksEnabled ? undefined : notFound('not_found', 'ingest sinks are switched off on this deployment')));

  route(app, '/v1/sinks', {
    post: [...d.authed, requireRecentSignIn(d.prisma), async (req, res) => {
      // validate
      const body = parse(CreateSinkBody, req.body);
      requireSinkName(body.name);
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
    patch: [...d.authed, requireRecentSignIn(d.prisma), async (req, res) => {
      // validate
      const body = parsePatch(req.body);
      // authorize
      const { sink, w } = await resolveSink(d, req.access!, String(req.params.sink_id), 'write');
      // act: every asked value at once or none; asking what is already so changes and audits nothing
      const r = await changeSink({ prisma: d.prisma, tables }, sink, w, {
        name: body.name, rollSeconds: body.roll_seconds, rollBytes: body.roll_bytes, inactivitySeconds: body.inactivity_seconds, enabled: body.enabled,
      });
      if (Object.keys(r.changes).length) {
        await writeAudit(d.db, req, { action: 'sink.update', orgId: w.orgId, targetType: 'sink', targetId: sink.id, data: { name: r.name, changes: r.changes, previous: r.previous } });
      }
      // answer
      res.json({ ...sinkResponse(urls, r.sink, w), updated: Object.keys(r.changes), previous: r.previous });
    }],
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
