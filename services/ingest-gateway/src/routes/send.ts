import type { Express, Request } from 'express';
import { looksLikeApiKey, parseSendKey, secretMatches } from '@floe/auth';
import { HttpError, forbidden, route } from '@floe/http';
import type { IngestDeps } from '../deps';
import { intakeSinkBy, type IntakeSink } from '../ledger';
import { takeSendBatch } from '../send-intake';
import { requireOpen } from '../sink-gate';

// Spec: POST /v1/sinks/{sink_id} — the send route. A JSON array of objects,
// stored unchanged as one NDJSON object per batch in the blob bucket with one
// PUT and no catalog call; the batch id (Idempotency-Key) is accepted once.
// The key is the sink's send key and nothing else; the intake is send-intake.ts.

interface SinkAuth extends IntakeSink {
  send_key_hash: string;
}

export function mountSend(app: Express, d: IngestDeps): void {
  route(app, '/v1/sinks/:sink_id', {
    post: async (req, res) => {
      const sink = await authenticate(d, req, String(req.params.sink_id));
      await takeSendBatch(d, req, res, sink, { kind: 'send_key' });
    },
  });
}

async function authenticate(d: IngestDeps, req: Request, sinkId: string): Promise<SinkAuth> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  if (!m) throw new HttpError(401, 'invalid_key', 'send Authorization: Bearer <send key>', {}, { 'WWW-Authenticate': 'Bearer' });
  const presented = m[1];
  if (looksLikeApiKey(presented) || presented.split('.').length === 3) {
    throw forbidden('send_only', 'the send route takes the sink\'s send key only; API keys and tokens are refused here');
  }
  const key = parseSendKey(presented);
  const sink = key ? await intakeSinkBy<SinkAuth>(d, 'send_key_id', key.keyId) : null;
  if (!sink || !key || sink.id !== sinkId || !secretMatches(key.secret, sink.send_key_hash)) {
    throw new HttpError(401, 'invalid_key', 'this send key is not valid for this sink', {}, { 'WWW-Authenticate': 'Bearer' });
  }
  requireOpen(sink, sinkId);
  return sink;
}
