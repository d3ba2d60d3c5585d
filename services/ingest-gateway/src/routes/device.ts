import { createHash } from 'node:crypto';
import type { Express } from 'express';
import { deviceTokenHash } from '@floe/auth';
import { HttpError, conflict, route } from '@floe/http';
import { DEFAULT_DEVICE_OPTIONS, DEVICE_RATE, applyDeviceOptions, readDevicePost, type DeviceOptions } from '@floe/ingest';
import type { IngestDeps } from '../deps';
import { duplicateView, existingBatch, intakeSinkBy, recordBatch, requireStorageHeadroom, type IntakeSink } from '../ledger';
import { requireCatalogLive } from '../sink-gate';

// Spec: device ingest route POST /d/{token} on {ingest_url}. The URL is the
// credential; form, JSON, NDJSON or CSV bodies up to 256 KiB; an identical
// repeated post is a duplicate (the batch id is the body's content hash);
// 6 posts per minute per sink sustained, bursts of 30.

interface DeviceSink extends IntakeSink {
  device_options: DeviceOptions | null;
}

export function mountDevice(app: Express, d: IngestDeps): void {
  route(app, '/d/:token', {
    post: async (req, res) => {
      const sink = await deviceSink(d, String(req.params.token));
      const wait = await d.deviceRate.take(sink.id);
      if (wait !== null) {
        req.resume();
        throw new HttpError(429, 'rate_limited', `this sink takes ${DEVICE_RATE.posts_per_minute} device posts per minute (bursts of ${DEVICE_RATE.burst}); retry in ${wait} s`,
          { retry_after_seconds: wait }, { 'Retry-After': String(wait) });
      }
      const { bytes, body } = await readDevicePost(req);
      const batchId = `d_${createHash('sha256').update(`${body.format}\n`).update(bytes).digest('hex').slice(0, 40)}`;
      const seen = await existingBatch(d, sink.id, batchId);
      if (seen) {
        res.status(200).json(duplicateView(batchId, seen));
        return;
      }
      const applied = applyDeviceOptions(body.elements, sink.device_options ?? DEFAULT_DEVICE_OPTIONS);
      if (applied.pin_mismatch) {
        throw new HttpError(401, 'invalid_device_secret', 'the pinned field is missing or has the wrong value; nothing was stored');
      }
      await requireStorageHeadroom(d, req, sink, { kind: 'device_token' });
      const ndjson = Buffer.from(applied.lines.map((l) => `${l}\n`).join(''), 'utf8');
      const saved = await recordBatch(d, sink, { batchId, ndjson, accepted: applied.lines.length, rejected: applied.reasons.length, intakeBytes: bytes.length, via: 'device' });
      if (saved.duplicate) {
        res.status(200).json(duplicateView(batchId, saved.row));
        return;
      }
      res.status(202).json({
        accepted: applied.lines.length,
        rejected: applied.reasons.length,
        reasons: applied.reasons,
        batch_id: batchId,
        sink_id: sink.id,
        bytes: saved.bytes,
        received_at: saved.received_at.toISOString(),
        state: saved.state,
        format: body.format,
      });
    },
  });
}

async function deviceSink(d: IngestDeps, token: string): Promise<DeviceSink> {
  const hash = deviceTokenHash(token);
  const sink = hash ? await intakeSinkBy<DeviceSink>(d, 'device_token_hash', hash) : null;
  // A deleted sink's token is as unknown as a made-up one: the URL says nothing about what it was.
  if (!sink || sink.state === 'deleted') throw new HttpError(401, 'invalid_device_token', 'this device URL is not valid (unknown, replaced or removed token)');
  // A token that still stands, of a catalog being deleted: said as the send route says it (the token works again after a restore).
  requireCatalogLive(sink);
  if (sink.state === 'disabled') throw conflict('sink_disabled', `sink ${sink.id} is disabled`);
  return sink;
}
