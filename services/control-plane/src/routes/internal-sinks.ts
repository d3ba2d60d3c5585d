import type { Express, RequestHandler } from 'express';
import { parse, requireBootstrapSecret, route } from '@floe/http';
import { RollReport } from '@floe/ingest';
import type { ControlPlaneDeps } from '../deps';
import { recordSinkRoll, rollerWorklist } from '../domain/sinks/sinks-ledger';

// Spec: GET /internal/sinks (the roller's worklist, empty while sinks are off)
// and POST /internal/sinks/{sink_id}/roll (a roll report: batches committed or
// discarded, the roll's counters, disabling; ledger rows over 7 days old are
// pruned). Bootstrap secret only; the public gateway never forwards /internal.
// The roller itself reads and records through the same ledger store.

export function mountInternalSinks(app: Express, d: ControlPlaneDeps): void {
  const secret: RequestHandler = requireBootstrapSecret(d.config.bootstrapSecret);

  route(app, '/internal/sinks', {
    get: [secret, async (_req, res) => {
      if (!d.config.sinksEnabled) {
        res.json({ sinks: [], count: 0, note: 'sinks are switched off on this deployment' });
        return;
      }
      const sinks = await rollerWorklist(d);
      res.json({ sinks, count: sinks.length });
    }],
  });

  route(app, '/internal/sinks/:sink_id/roll', {
    post: [secret, async (req, res) => {
      const body = parse(RollReport, req.body);
      res.json(await recordSinkRoll(d, String(req.params.sink_id), body));
    }],
  });
}
