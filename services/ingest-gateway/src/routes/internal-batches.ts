import type { Express } from 'express';
import { badRequest, notFound, requireBootstrapSecret, route } from '@floe/http';
import type { IngestDeps } from '../deps';
import { intakeSinkBy } from '../ledger';
import { takeSendBatch } from '../send-intake';
import { requireOpen } from '../sink-gate';

// POST /internal/sinks/{sink_id}/batches — the send route's intake for the
// MCP tool server. The public send route takes a sink's send key only
// (`send_only`), and a tool-server token is no send key: the tool server asks
// the control plane whether the token may write to the sink's catalog, then
// hands the rows here with the deployment's bootstrap secret (never routed by
// the public gateway). The intake is the send route's own (send-intake.ts):
// same body limit, batch id, duplicate answer, quota, metering. The token
// record acting is named in X-Floe-Actor-Id, so a quota refusal is audited
// with it as the actor.

const ACTOR = /^[A-Za-z0-9_.:-]{1,128}$/;

export function mountInternalBatches(app: Express, d: IngestDeps): void {
  route(app, '/internal/sinks/:sink_id/batches', {
    post: [requireBootstrapSecret(d.config.bootstrapSecret), async (req, res) => {
      const sinkId = String(req.params.sink_id);
      const actorId = req.get('x-floe-actor-id') ?? '';
      if (!ACTOR.test(actorId)) throw badRequest('missing_field', 'name the acting token record in X-Floe-Actor-Id', { field: 'X-Floe-Actor-Id' });
      const sink = await intakeSinkBy(d, 'id', sinkId);
      if (!sink) throw notFound('sink_not_found', `no sink ${sinkId}`);
      requireOpen(sink, sinkId);
      await takeSendBatch(d, req, res, sink, { kind: 'mcp', id: actorId });
    }],
  });
}
