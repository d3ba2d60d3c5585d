import type { Express, Request } from 'express';
import { looksLikeApiKey, parseSendKey, secretMatches } from '@floe/auth';
import { scopeStoredBytes, STORAGE_LIMIT_BYTES } from '@floe/db/usage';
import { HttpError, badRequest, conflict, forbidden, notFound, route } from '@floe/http';
import { StorageError } from '@floe/storage';
import type { IngestDeps } from '../deps';
import { parseBatch } from '../batch';

// Spec: POST /v1/sinks/{sink_id} — the send route. A JSON array of objects,
// stored unchanged as one NDJSON object per batch in the blob bucket with one
// PUT and no catalog call; the batch id (Idempotency-Key) is accepted once.

export const SEND_BODY_LIMIT = 16 * 1024 * 1024;
const BATCH_ID = /^[A-Za-z0-9._:-]{1,128}$/;

interface SinkAuth {
  id: string;
  state: string;
  send_key_hash: string;
  warehouse_id: string;
  blob_bucket: string;
  storage_access_key: string;
  storage_secret_key: string;
  org_id: string | null;
  owner_id: string;
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
        res.status(200).json(duplicate(batchId, seen));
        return;
      }
      const type = (req.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
      if (type !== 'application/json') {
        throw new HttpError(415, 'unsupported_media_type', 'the send route takes Content-Type: application/json');
      }
      const body = await readBody(req);
      const parsed = parseBatch(body.toString('utf8'));
      if (!parsed.ok) throw badRequest('not_an_array', parsed.reason, { got: parsed.got });
      if (parsed.elements.length === 0) throw badRequest('empty_batch', 'the array has no elements');

      const reasons: Array<{ index: number; reason: string; got: string }> = [];
      const lines: string[] = [];
      parsed.elements.forEach((e, index) => {
        if (e.kind === 'object') lines.push(e.raw);
        else reasons.push({ index, reason: 'not an object', got: e.kind });
      });
      const stored = await scopeStoredBytes(d.db, sink.org_id, sink.owner_id);
      if (stored >= STORAGE_LIMIT_BYTES) {
        throw conflict('quota_exceeded', 'the storage limit is reached; nothing was accepted', { current: stored, limit_value: STORAGE_LIMIT_BYTES, scope: sink.org_id ? 'organization' : 'project' });
      }
      const ndjson = lines.length ? `${lines.join('\n')}\n` : '';
      if (ndjson) {
        try {
          await d.storage.objectsAs({ accessKeyId: sink.storage_access_key, secretAccessKey: sink.storage_secret_key })
            .put(sink.blob_bucket, `_sink/${sink.id}/${batchId}.ndjson`, ndjson, { contentType: 'application/x-ndjson' });
        } catch (err) {
          if (err instanceof StorageError) {
            throw new HttpError(502, 'storage_error', 'the batch could not be stored; retry with the same batch id (it is safe)', { retry_after_seconds: 2 }, { 'Retry-After': '2' });
          }
          throw err;
        }
      }
      const bytes = Buffer.byteLength(ndjson);
      // The row is written after the object: a batch row always has its object; a lost race answers as the duplicate it is.
      const { rows } = await d.db.query<{ received_at: Date }>(
        `INSERT INTO sink_batches (sink_id, batch_id, bytes, accepted, rejected, state) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT DO NOTHING RETURNING received_at`,
        [sink.id, batchId, bytes, lines.length, reasons.length, lines.length ? 'pending' : 'committed']);
      if (!rows[0]) {
        res.status(200).json(duplicate(batchId, (await existingBatch(d, sink.id, batchId))!));
        return;
      }
      res.status(202).json({
        accepted: lines.length,
        rejected: reasons.length,
        reasons,
        batch_id: batchId,
        sink_id: sink.id,
        bytes,
        received_at: rows[0].received_at.toISOString(),
        // A batch with no object has nothing to append: it is done as received.
        state: lines.length ? 'pending' : 'committed',
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
  const { rows } = key
    ? await d.db.query<SinkAuth>({
      name: 'ingest_sink_by_key',
      text: `SELECT s.id, s.state, s.send_key_hash, s.warehouse_id, w.blob_bucket, w.storage_access_key, w.storage_secret_key, w.org_id, p.owner_id
               FROM sinks s JOIN warehouses w ON w.id = s.warehouse_id JOIN projects p ON p.id = w.project_id
              WHERE s.send_key_id = $1`,
      values: [key.keyId],
    })
    : { rows: [] as SinkAuth[] };
  const sink = rows[0];
  if (!sink || !key || sink.id !== sinkId || !secretMatches(key.secret, sink.send_key_hash)) {
    throw new HttpError(401, 'invalid_key', 'this send key is not valid for this sink', {}, { 'WWW-Authenticate': 'Bearer' });
  }
  if (sink.state === 'deleted') throw notFound('sink_not_found', `sink ${sinkId} was deleted`);
  if (sink.state === 'disabled') throw conflict('sink_disabled', `sink ${sinkId} is disabled`);
  return sink;
}

interface BatchRow {
  state: string;
  accepted: number;
  rejected: number;
  bytes: number;
  received_at: Date;
}

async function existingBatch(d: IngestDeps, sinkId: string, batchId: string): Promise<BatchRow | null> {
  const { rows } = await d.db.query<BatchRow>({
    name: 'ingest_batch',
    text: `SELECT state, accepted, rejected, bytes, received_at FROM sink_batches WHERE sink_id = $1 AND batch_id = $2`,
    values: [sinkId, batchId],
  });
  return rows[0] ?? null;
}

function duplicate(batchId: string, b: BatchRow) {
  return {
    duplicate: true, batch_id: batchId, accepted: b.accepted, rejected: b.rejected, bytes: b.bytes,
    received_at: new Date(b.received_at).toISOString(), state: b.state === 'committed' ? 'committed' : 'pending',
  };
}

/** The body, refused with 413 batch_too_large past 16 MiB without reading the rest into memory. */
async function readBody(req: Request): Promise<Buffer> {
  const declared = Number(req.get('content-length') ?? 0);
  if (declared > SEND_BODY_LIMIT) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > SEND_BODY_LIMIT) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(): HttpError {
  return new HttpError(413, 'batch_too_large', `a batch is at most ${SEND_BODY_LIMIT} bytes (16 MiB)`, { limit: SEND_BODY_LIMIT }, { Connection: 'close' });
}
