import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { notFound, parse, requireBootstrapSecret, route } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';

// Spec: GET /internal/sinks (the roller's worklist, empty while sinks are off)
// and POST /internal/sinks/{sink_id}/roll (the roller reports what a roll
// committed). Bootstrap secret only; the public gateway never forwards /internal.

const LEDGER_DAYS = 7;

const RollReport = z.object({
  batch_ids: z.array(z.string().min(1).max(128)).max(100_000).default([]),
  snapshot_id: z.string().regex(/^-?\d+$/).nullable().default(null),
  rows: z.number().int().min(0).default(0),
  rejected_rows: z.number().int().min(0).default(0),
  seconds: z.number().min(0).default(0),
  disabled_reason: z.enum(['table_missing']).optional(),
  discarded_batch_ids: z.array(z.string().min(1).max(128)).max(100_000).default([]),
  reject_file: z.string().min(1).max(1024).optional(),
  table_changes_applied: z.boolean().optional(),
});

export function mountInternalSinks(app: Express, d: ControlPlaneDeps): void {
  const secret: RequestHandler = requireBootstrapSecret(d.config.bootstrapSecret);

  route(app, '/internal/sinks', {
    get: [secret, async (_req, res) => {
      if (!d.config.sinksEnabled) {
        res.json({ sinks: [], count: 0, note: 'sinks are switched off on this deployment' });
        return;
      }
      // Live sinks with waiting batches, and deleted ones whose waiting batches are to be discarded.
      const { rows } = await d.db.query(
        `SELECT s.id, s.warehouse_id, s.namespace, s.table_name, s.state, s.roll_seconds, s.roll_bytes, s.inactivity_seconds, s.table_changes_applied,
                count(b.batch_id)::int AS batches, COALESCE(sum(b.bytes), 0)::bigint AS bytes, min(b.received_at) AS oldest, max(b.received_at) AS newest
           FROM sinks s JOIN sink_batches b ON b.sink_id = s.id AND b.state = 'pending'
          WHERE s.state IN ('active', 'deleted')
          GROUP BY s.id ORDER BY min(b.received_at)`);
      const now = Date.now();
      const sinks = rows.map((r) => {
        const age = (now - new Date(r.oldest).getTime()) / 1000;
        const idle = (now - new Date(r.newest).getTime()) / 1000;
        const reason = r.state === 'deleted' ? 'deleted'
          : Number(r.bytes) >= Number(r.roll_bytes) ? 'roll_bytes'
            : age >= r.roll_seconds ? 'roll_seconds'
              : r.inactivity_seconds !== null && idle >= r.inactivity_seconds ? 'inactivity_seconds' : null;
        return {
          sink_id: r.id,
          warehouse_id: r.warehouse_id,
          table: `${r.namespace}.${r.table_name}`,
          namespace: r.namespace,
          table_name: r.table_name,
          state: r.state,
          roll: { seconds: r.roll_seconds, bytes: Number(r.roll_bytes), inactivity_seconds: r.inactivity_seconds },
          table_changes_applied: r.table_changes_applied,
          pending: { batches: r.batches, bytes: Number(r.bytes), oldest_received_at: new Date(r.oldest).toISOString(), newest_received_at: new Date(r.newest).toISOString() },
          due: reason !== null,
          due_reason: reason,
        };
      });
      res.json({ sinks, count: sinks.length });
    }],
  });

  route(app, '/internal/sinks/:sink_id/roll', {
    post: [secret, async (req, res) => {
      const id = String(req.params.sink_id);
      const body = parse(RollReport, req.body);
      const { rows: found } = await d.db.query(`SELECT id FROM sinks WHERE id = $1`, [id]);
      if (!found[0]) throw notFound('sink_not_found', `no sink ${id}`);
      const committed = body.batch_ids.length
        ? (await d.db.query(
          `UPDATE sink_batches SET state = 'committed', committed_at = now(), snapshot_id = $3
            WHERE sink_id = $1 AND batch_id = ANY($2::text[]) AND state = 'pending'`, [id, body.batch_ids, body.snapshot_id])).rowCount ?? 0
        : 0;
      const discarded = body.discarded_batch_ids.length
        ? (await d.db.query(
          `UPDATE sink_batches SET state = 'discarded', committed_at = now()
            WHERE sink_id = $1 AND batch_id = ANY($2::text[]) AND state = 'pending'`, [id, body.discarded_batch_ids])).rowCount ?? 0
        : 0;
      const lastRoll = body.batch_ids.length
        ? { at: new Date().toISOString(), batches: committed, rows: body.rows, rejected_rows: body.rejected_rows, snapshot_id: body.snapshot_id, seconds: body.seconds }
        : null;
      const { rows: after } = await d.db.query<{ state: string }>(
        `UPDATE sinks SET
           last_roll = COALESCE($2::jsonb, last_roll),
           rejected_rows = rejected_rows + $3,
           reject_files = reject_files + $4,
           table_changes_applied = table_changes_applied OR $5,
           state = CASE WHEN $6::text IS NOT NULL AND state = 'active' THEN 'disabled' ELSE state END,
           disabled_reason = CASE WHEN $6::text IS NOT NULL AND state = 'active' THEN $6 ELSE disabled_reason END
         WHERE id = $1 RETURNING state`,
        [id, lastRoll ? JSON.stringify(lastRoll) : null, body.rejected_rows, body.reject_file ? 1 : 0, body.table_changes_applied ?? false, body.disabled_reason ?? null]);
      const pruned = (await d.db.query(
        `DELETE FROM sink_batches WHERE sink_id = $1 AND state IN ('committed', 'discarded') AND committed_at < now() - make_interval(days => $2)`,
        [id, LEDGER_DAYS])).rowCount ?? 0;
      res.json({ sink_id: id, committed, discarded, pruned, state: after[0].state });
    }],
  });
}
