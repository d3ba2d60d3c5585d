import type { Request, Response } from 'express';
import { HttpError, badRequest, readBodyUpTo } from '@floe/http';
import { readSendBatch } from '@floe/ingest';
import type { IngestDeps } from './deps';
import { duplicateView, existingBatch, recordBatch, requireStorageHeadroom, type IntakeActor, type IntakeSink } from './ledger';

// The send route's intake once the caller is known to be allowed to send to
// the sink: batch id, duplicate check, body, quota, the batch's object and
// ledger row, the answer. Two callers share it, so a batch is taken the same
// way whoever sends it: the public send route (a sink's send key) and the
// internal batches route (the MCP tool server, acting for a token the control
// plane has judged). Same limits, same idempotency, same metering.

export const SEND_BODY_LIMIT = 16 * 1024 * 1024;
const BATCH_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes one JSON-array batch for `sink` from the request and answers 202 (stored) or 200 (duplicate). */
export async function takeSendBatch(d: IngestDeps, req: Request, res: Response, sink: IntakeSink, actor: IntakeActor): Promise<void> {
  // validate the batch id
  const batchId = req.get('idempotency-key');
  if (batchId === undefined || batchId === '') throw badRequest('missing_idempotency_key', 'send the batch id as Idempotency-Key', { field: 'Idempotency-Key' });
  if (!BATCH_ID.test(batchId)) throw badRequest('invalid_batch_id', 'a batch id is 1-128 letters, digits, . _ : -', { field: 'Idempotency-Key' });

  // a batch already received: its answer again, nothing read or written
  const seen = await existingBatch(d, sink.id, batchId);
  if (seen) {
    req.resume();
    res.status(200).json(duplicateView(batchId, seen));
    return;
  }

  // read the body
  const type = (req.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(415, 'unsupported_media_type', 'the send route takes Content-Type: application/json');
  }
  const body = await readBodyUpTo(req, SEND_BODY_LIMIT, tooLarge);
  const batch = readSendBatch(body);
  if (!batch.ok) throw badRequest('not_an_array', batch.reason, { got: batch.got });
  if (batch.count === 0) throw badRequest('empty_batch', 'the array has no elements');

  // store it
  const reasons = batch.others.map(({ index, got }) => ({ index, reason: 'not an object', got }));
  await requireStorageHeadroom(d, req, sink, actor);
  const saved = await recordBatch(d, sink, { batchId, ndjson: batch.ndjson, accepted: batch.objects, rejected: reasons.length, intakeBytes: body.length, via: 'send' });

  // answer
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
    note: 'Stored; the roller appends it to the table at the next roll. Schema fit is decided then: rows that do not fit are counted with their reasons and example lines in GET /v1/sinks/{id} (rejects.recent), and kept in the reject files under rejects.prefix for 7 days.',
  });
}

function tooLarge(): HttpError {
  return new HttpError(413, 'batch_too_large', `a batch is at most ${SEND_BODY_LIMIT} bytes (16 MiB)`, { limit: SEND_BODY_LIMIT }, { Connection: 'close' });
}
