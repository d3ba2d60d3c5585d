import type { Express } from 'express';
import { z } from 'zod';
import { generateDeviceToken } from '@floe/auth';
import { badRequest, conflict, limitExceeded, parse, route, type SqlClient, writeAudit } from '@floe/http';
import {
  DEFAULT_DEVICE_OPTIONS, DEVICE_BODY_LIMIT, DEVICE_RATE, PRESETS, applyDeviceOptions, currentSchemaFields, deviceOptionsView,
  mapLines, mappedRows, pinnedValueHash, readDevicePost, type DeviceOptions,
} from '@floe/ingest';
import type { ControlPlaneDeps } from '../deps';
import { catalogTables } from '../domain/catalog-tables';
import { FREE_PLAN } from '../domain/plans';
import { iso } from '../responses';
import { resolveSink } from './sinks';

// Spec: Ingest sinks — the device token (mint or replace, remove) and the
// dry run of a body against the table's schema. Shapes are Floe's own (the
// spec leaves them open); they are documented in docs/ingest.md.

const FIELD = z.string().min(1).max(128);

const DeviceTokenRequest = z.object({
  required_field: FIELD.nullable().default(null),
  pinned_value: z.string().min(8, 'at least 8 characters').max(256).nullable().default(null),
  strip_fields: z.array(FIELD).max(64).default([]),
  preset: z.enum(PRESETS).default('as_is'),
  preset_params: z.object({
    separator: z.string().min(1).max(4).optional(),
    column: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'a column name').optional(),
  }).strict().default({}),
}).strict();

export function mountSinkDevice(app: Express, d: ControlPlaneDeps): void {
  const tables = catalogTables(d.catalog);

  route(app, '/v1/sinks/:sink_id/device-token', {
    post: [...d.authed, async (req, res) => {
      const { sink, w } = await resolveSink(d, req.access!, String(req.params.sink_id), 'write');
      const body = parse(DeviceTokenRequest, req.body ?? {});
      if (body.pinned_value !== null && body.required_field === null) {
        throw badRequest('invalid_value', 'a pinned_value pins the required_field: name it too', { field: 'required_field' });
      }
      if (body.preset !== 'flatten' && body.preset_params.separator !== undefined) throw badRequest('invalid_value', 'separator is a parameter of the flatten preset', { field: 'preset_params.separator' });
      if (body.preset !== 'wrap' && body.preset_params.column !== undefined) throw badRequest('invalid_value', 'column is a parameter of the wrap preset', { field: 'preset_params.column' });
      if (sink.state === 'disabled') throw conflict('sink_disabled', `sink ${sink.name} is disabled (${sink.disabledReason}); a device could not post to it`);
      if (!sink.device.token) await requireDeviceSinkRoom(d.db, w.id);

      const options: DeviceOptions = {
        required_field: body.required_field,
        pinned_value_sha256: body.pinned_value === null ? null : pinnedValueHash(body.pinned_value),
        strip_fields: body.strip_fields,
        preset: body.preset,
        preset_params: body.preset_params,
      };
      const token = generateDeviceToken();
      const { rows } = await d.db.query<{ device_token_at: Date }>(
        `UPDATE sinks SET device_token_hash = $2, device_options = $3, device_token_at = now() WHERE id = $1 RETURNING device_token_at`,
        [sink.id, token.hash, JSON.stringify(options)]);
      await writeAudit(d.db, req, { action: 'sink.device_token', orgId: w.orgId, targetType: 'sink', targetId: sink.id, data: { replaced: sink.device.token } });
      res.status(201).json({
        sink_id: sink.id,
        name: sink.name,
        device_url: `${d.config.ingestUrl}/d/${token.token}`,
        device_token: token.token,
        replaced: sink.device.token,
        options: deviceOptionsView(options),
        rate: DEVICE_RATE,
        body_limit_bytes: DEVICE_BODY_LIMIT,
        formats: ['application/json', 'application/x-ndjson', 'text/csv', 'application/x-www-form-urlencoded'],
        created_at: iso(rows[0].device_token_at),
        note: 'The URL is the credential: shown once, only a hash is kept. Posting a new token replaces this one at once.',
      });
    }],
    delete: [...d.authed, async (req, res) => {
      const { sink, w } = await resolveSink(d, req.access!, String(req.params.sink_id), 'write');
      await d.db.query(`UPDATE sinks SET device_token_hash = NULL, device_options = NULL, device_token_at = NULL WHERE id = $1`, [sink.id]);
      if (sink.device.token) {
        await writeAudit(d.db, req, { action: 'sink.device_token_remove', orgId: w.orgId, targetType: 'sink', targetId: sink.id, data: {} });
      }
      res.json({
        sink_id: sink.id,
        name: sink.name,
        removed: sink.device.token,
        note: sink.device.token ? 'The device URL is refused from now on (401 invalid_device_token).' : 'This sink had no device token.',
      });
    }],
  });

  route(app, '/v1/sinks/:sink_id/test', {
    post: [...d.authed, async (req, res) => {
      const { sink, w } = await resolveSink(d, req.access!, String(req.params.sink_id), 'read');
      const { body } = await readDevicePost(req);
      const options = sink.device.options ?? DEFAULT_DEVICE_OPTIONS;
      const applied = applyDeviceOptions(body.elements, options);
      const loaded = await tables.load(w, sink.namespace, sink.tableName);
      const fields = currentSchemaFields(loaded.metadata as { schemas?: unknown; 'current-schema-id'?: unknown });
      const mapped = mappedRows(fields);
      mapLines(mapped, 'test', BigInt(Date.now()) * 1000n, applied.lines.join('\n'));
      const reasons = [
        ...applied.reasons.map((r) => ({ ...r, stage: 'intake' })),
        ...mapped.rejects.map((r) => ({ index: applied.indexes[r.line - 1], reason: r.reason, got: 'object', stage: 'schema' })),
      ].sort((a, b) => a.index - b.index);
      const secret = options.pinned_value_sha256 === null ? 'not_pinned' : applied.pin_mismatch ? 'mismatch' : 'ok';
      res.json({
        sink_id: sink.id,
        table: `${sink.namespace}.${sink.tableName}`,
        format: body.format,
        elements: body.elements.length,
        accepted: applied.pin_mismatch ? 0 : mapped.count,
        rejected: applied.pin_mismatch ? body.elements.length : reasons.length,
        reasons: applied.pin_mismatch ? [] : reasons,
        device_secret: secret,
        device_answer: applied.pin_mismatch ? { status: 401, code: 'invalid_device_secret' } : { status: 202 },
        stored_lines: applied.pin_mismatch ? [] : applied.lines.slice(0, 5),
        columns: fields.map((f) => ({ name: f.name, type: typeof f.type === 'string' ? f.type : 'nested', required: f.required })),
        options: deviceOptionsView(options),
        stored: false,
        note: 'A dry run: nothing was stored and no rate allowance was used. Rows are checked against the table\'s current schema, as the next roll would.',
      });
    }],
  });
}

/** The scope (organisation, or owner without one) holds at most the plan's device sinks. */
async function requireDeviceSinkRoom(db: SqlClient, warehouseId: string): Promise<void> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM sinks s JOIN warehouses w ON w.id = s.warehouse_id JOIN projects p ON p.id = w.project_id,
            warehouses mw JOIN projects mp ON mp.id = mw.project_id
      WHERE mw.id = $1 AND s.state <> 'deleted' AND s.device_token_hash IS NOT NULL
        AND (CASE WHEN mw.org_id IS NOT NULL THEN w.org_id = mw.org_id ELSE w.org_id IS NULL AND p.owner_id = mp.owner_id END)`,
    [warehouseId]);
  if (rows[0].n >= FREE_PLAN.device_sinks) {
    throw limitExceeded(`at most ${FREE_PLAN.device_sinks} sinks take device posts`, { limit: 'device_sinks', limit_value: FREE_PLAN.device_sinks, current: rows[0].n });
  }
}
