import type { Express, Request } from 'express';
import { looksLikeApiKey, parseSendKey, secretMatches } from '@floe/auth';
import { HttpError, badRequest, conflict, forbidden, notFound, readBodyUpTo, route } from '@floe/http';
import { readSendBatch } from '@floe/ingest';
import type { IngestDeps } from '../deps';
import { duplicateView, existingBatch, intakeSinkBy, recordBatch, requireStorageHeadroom, type IntakeSink } from '../ledger';

// Spec: POST /v1/sinks/{sink_id} — the send route. A JSON array of objects,
// stored unchanged as one NDJSON object per batch in the blob bucket with one
// PUT and no catalog call; the batch id (Idempotency-Key) is accepted once.

export const SEND_BODY_LIMIT = 16 * 1024 * 1024;
const BATCH_ID = /^[A-Za-z0-9._:-]{1,128}$/;

interface SinkAuth extends IntakeSink {
  send_key_hash: string;
}

export function mountSend(app: Express, d: IngestDeps): void {
  route(app, '/v1/sinks/:sink_id', {
    post: async (req, res) => {
      const sink = await authenticate(d, req, String(req.params.sink_id));
      const batchId = req.get('idempotency-key');
      if (batchId === undefined || batchId === '') throw badRequest('missing_idempotency_key', 'send the batch id as Idempotency-Key', { field: 'Idempotency-Key' });
      if (!BATCH_ID.test(batchId)) throw badRequest('invalid_batch_id', 'a batch id is 1-128 letters, digits, . _ : -', { field: 'Idempotency-Key' });

      const seen = await existingBatch(d, sink.id, batchId);
      if (seen) {
        req.resume();
        res.status(200).json(duplicateView(batchId, seen));
        return;
      }
      const type = (req.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
      if (type !== 'application/json') {
        throw new HttpError(415, 'unsupported_media_type', 'the send route takes Content-Type: application/json');
      }
      const body = await readBodyUpTo(req, SEND_BODY_LIMIT, tooLarge);
      const batch = readSendBatch(body);
      if (!batch.ok) throw badRequest('not_an_array', batch.reason, { got: batch.got });
      if (batch.count === 0) throw badRequest('empty_batch', 'the array has no elements');

      const reasons = batch.others.map(({ index, got }) => ({ index, reason: 'not an object', got }));
      await requireStorageHeadroom(d, req, sink, 'send');
      const saved = await recordBatch(d, sink, { batchId, ndjson: batch.ndjson, accepted: batch.objects, rejected: reasons.length, intakeBytes: body.length, via: 'send' });
      if (saved.duplicate) {
        res.status(200).json(duplicateView(batchId, saved.row));
        return;
      }
      res.status(202).json({
        accepted: batch.objects,
        rejected: reasons.length,
        reasons,
        batch_id: batchId,
        sink_id: sink.id,
        bytes: saved.bytes,
        received_at: saved.received_at.toISOString(),
        state: saved.state,
        note: 'Stored; the roller appends it to the table at the next roll. Schema fit is decided then and shows in the sink\'s rejects.',
      });
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
  if (sink.state === 'deleted') throw notFound('sink_not_found', `sink ${sinkId} was deleted`);
  if (sink.state === 'disabled') throw conflict('sink_disabled', `sink ${sinkId} is disabled`);
  return sink;
}

function tooLarge(): HttpError {
  return new HttpError(413, 'batch_too_large', `a batch is at most ${SEND_BODY_LIMIT} bytes (16 MiB)`, { limit: SEND_BODY_LIMIT }, { Connection: 'close' });
}
