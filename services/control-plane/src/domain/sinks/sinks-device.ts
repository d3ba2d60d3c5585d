import type { VisibleWarehouse } from '@floe/catalogs';
import { generateDeviceToken } from '@floe/auth';
import type { PrismaClient } from '@floe/db';
import { badRequest, conflict, limitExceeded } from '@floe/http';
import { DEFAULT_DEVICE_OPTIONS, DEVICE_BODY_LIMIT, DEVICE_RATE, applyDeviceOptions, currentSchemaFields, deviceOptionsView, mapLines, mappedRows, pinnedValueHash, type DeviceBody, type DeviceOptions, type Preset } from '@floe/ingest';
import { toTableMetadata } from '@floe/iceberg';
import { clearDeviceToken, setDeviceToken } from '@floe/ingest/sink-store';
import { effectiveLimits } from '@floe/db/limits';
import { deviceSinkScope, deviceSinksOf, hasDeviceToken, lockDeviceSinkScope, type SinkRecord } from '../../store/sinks';
import type { catalogTables } from '../tables/catalog-tables';

// Spec: Ingest sinks — the device route's side in the control plane: the
// device token (mint or replace, remove) with the body-level options, and the
// dry run of a body against the table's schema. Shapes are Floe's own (the
// spec leaves them open); they are documented in docs/ingest.md.

export interface DeviceTokenAsk {
  required_field: string | null;
  pinned_value: string | null;
  strip_fields: string[];
  preset: Preset;
  preset_params: { separator?: string; column?: string };
}

/**
 * Mints (or replaces) a sink's device token with its options: 400
 * `invalid_value` for options that do not go together, 409 `sink_disabled`,
 * and a new device sink past the plan's number is 409 `limit_exceeded`
 * (counted and granted under the scope's lock, so concurrent requests stop
 * exactly at the number). The URL carries the token, shown once; only its
 * hash is kept.
 */
export async function issueDeviceToken(d: { prisma: PrismaClient; ingestUrl: string }, sink: SinkRecord, ask: DeviceTokenAsk) {
  // validate
  if (ask.pinned_value !== null && ask.required_field === null) {
    throw badRequest('invalid_value', 'a pinned_value pins the required_field: name it too', { field: 'required_field' });
  }
  if (ask.preset !== 'flatten' && ask.preset_params.separator !== undefined) throw badRequest('invalid_value', 'separator is a parameter of the flatten preset', { field: 'preset_params.separator' });
  if (ask.preset !== 'wrap' && ask.preset_params.column !== undefined) throw badRequest('invalid_value', 'column is a parameter of the wrap preset', { field: 'preset_params.column' });
  if (sink.state === 'disabled') throw conflict('sink_disabled', `sink ${sink.name} is disabled (${sink.disabledReason}); a device could not post to it`);
  // act
  const options: DeviceOptions = {
    required_field: ask.required_field,
    pinned_value_sha256: ask.pinned_value === null ? null : pinnedValueHash(ask.pinned_value),
    strip_fields: ask.strip_fields,
    preset: ask.preset,
    preset_params: ask.preset_params,
  };
  const token = generateDeviceToken();
  const { createdAt, replaced } = await d.prisma.$transaction(async (tx) => {
    // the plan's number of device sinks, unless this one is one already: counted and taken under the scope's lock
    const scope = await deviceSinkScope(tx, sink.warehouseId);
    if (scope.ownerId !== null) await lockDeviceSinkScope(tx, { orgId: scope.orgId, ownerId: scope.ownerId });
    const had = await hasDeviceToken(tx, sink.id);
    if (!had) {
      const current = scope.ownerId === null ? 0 : await deviceSinksOf(tx, scope.orgId, scope.ownerId);
      const { limits } = await effectiveLimits(tx, scope.orgId);
      if (current >= limits.device_sinks) {
        throw limitExceeded(`at most ${limits.device_sinks} sinks take device posts`, { limit: 'device_sinks', limit_value: limits.device_sinks, current });
      }
    }
    return { createdAt: await setDeviceToken(tx, sink.id, token.hash, options), replaced: had };
  }, { maxWait: 10_000, timeout: 15_000 });
  return {
    sink_id: sink.id,
    name: sink.name,
    device_url: `${d.ingestUrl}/d/${token.token}`,
    device_token: token.token,
    replaced,
    options: deviceOptionsView(options),
    rate: DEVICE_RATE,
    body_limit_bytes: DEVICE_BODY_LIMIT,
    formats: ['application/json', 'application/x-ndjson', 'text/csv', 'application/x-www-form-urlencoded'],
    created_at: createdAt.toISOString(),
    note: 'The URL is the credential: shown once, only a hash is kept. Posting a new token replaces this one at once.',
  };
}

/** Removes a sink's device token: the device URL is refused from then on. */
export async function removeDeviceToken(d: { prisma: PrismaClient }, sink: SinkRecord) {
  const removed = await clearDeviceToken(d.prisma, sink.id);
  return {
    sink_id: sink.id,
    name: sink.name,
    removed,
    note: removed ? 'The device URL is refused from now on (401 invalid_device_token).' : 'This sink had no device token.',
  };
}

/** A device body checked as the device route and the next roll would take it; nothing is stored and no rate allowance is used. */
export async function dryRun(d: { tables: Pick<ReturnType<typeof catalogTables>, 'load'> }, sink: SinkRecord, w: VisibleWarehouse, body: DeviceBody) {
  const options = sink.device.options ?? DEFAULT_DEVICE_OPTIONS;
  const applied = applyDeviceOptions(body.elements, options);
  const loaded = await d.tables.load(w, sink.namespace, sink.tableName);
  const fields = currentSchemaFields(toTableMetadata(loaded.metadata));
  const mapped = mappedRows(fields);
  mapLines(mapped, 'test', BigInt(Date.now()) * 1000n, applied.lines.join('\n'));
  const reasons = [
    ...applied.reasons.map((r) => ({ ...r, stage: 'intake' })),
    ...mapped.rejects.map((r) => ({ index: applied.indexes[r.line - 1], reason: r.reason, got: 'object', stage: 'schema' })),
  ].sort((a, b) => a.index - b.index);
  const secret = options.pinned_value_sha256 === null ? 'not_pinned' : applied.pin_mismatch ? 'mismatch' : 'ok';
  return {
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
  };
}
