import type { Express } from 'express';
import { SinkDeviceTokenBody } from '@floe/api';
import { parse, route, writeAudit } from '@floe/http';
import { readDevicePost } from '@floe/ingest';
import { requireRecentSignIn } from '../access/load';
import type { ControlPlaneDeps } from '../deps';
import { resolveSink } from '../domain/sinks/sinks';
import { dryRun, issueDeviceToken, removeDeviceToken } from '../domain/sinks/sinks-device';
import { catalogTables } from '../domain/tables/catalog-tables';

// Spec: Ingest sinks — the device token (mint or replace, remove) and the
// dry run of a body against the table's schema. Shapes are Floe's own (the
// spec leaves them open); they are documented in docs/ingest.md.

export function mountSinkDevice(app: Express, d: ControlPlaneDeps): void {
  const tables = catalogTables(d.catalog);

  route(app, '/v1/sinks/:sink_id/device-token', {
    post: [...d.authed, requireRecentSignIn(d.prisma), async (req, res) => {
      const { sink, w } = await resolveSink(d, req.access!, String(req.params.sink_id), 'write');
      const body = parse(SinkDeviceTokenBody, req.body ?? {});
      const answer = await issueDeviceToken({ prisma: d.prisma, ingestUrl: d.config.ingestUrl }, sink, body);
      await writeAudit(d.db, req, { action: 'sink.device_token', orgId: w.orgId, targetType: 'sink', targetId: sink.id, data: { replaced: answer.replaced } });
      res.status(201).json(answer);
    }],
    delete: [...d.authed, requireRecentSignIn(d.prisma), async (req, res) => {
      const { sink, w } = await resolveSink(d, req.access!, String(req.params.sink_id), 'write');
      const answer = await removeDeviceToken(d, sink);
      if (answer.removed) {
        await writeAudit(d.db, req, { action: 'sink.device_token_remove', orgId: w.orgId, targetType: 'sink', targetId: sink.id, data: {} });
      }
      res.json(answer);
    }],
  });

  route(app, '/v1/sinks/:sink_id/test', {
    post: [...d.authed, async (req, res) => {
      const { sink, w } = await resolveSink(d, req.access!, String(req.params.sink_id), 'read');
      const { body } = await readDevicePost(req);
      res.json(await dryRun({ tables }, sink, w, body));
    }],
  });
}
