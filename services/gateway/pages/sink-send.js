// Rows to send to a sink: a sample row that fits its table and the curl that
// sends it. Its own file because the panel after making a sink (sink-list.js),
// a sink's sending and test sections (sink-detail.js) and its device URL
// (sink-device.js) all offer the same row and command.
import { call, h } from '/app/console.js';
import { enc } from '/app/sink-words.js';

/** A value of each primitive type the roller reads from JSON (packages/iceberg values.ts); nested types are left out. */
const SAMPLES = { boolean: true, int: 1, long: 1, float: 1.5, double: 1.5, string: 'hello', uuid: '2f1a6c4e-0b8d-4f43-9a51-7c0e3b2d9f10', date: '2024-01-31', time: '12:00:00' };

function sampleValue(type) {
  if (typeof type !== 'string') return undefined;
  if (type in SAMPLES) return SAMPLES[type];
  if (type.startsWith('timestamp')) return new Date().toISOString();
  if (type.startsWith('decimal')) return '1';
  return undefined;
}

/** The table behind `<ns>.<table>` (GET /v1/table): its columns and row count; null when it cannot be read. */
export async function tableOf(catalog, qualified) {
  const dot = qualified.lastIndexOf('.');
  const q = `warehouse_id=${enc(catalog.warehouse_id)}&namespace=${enc(qualified.slice(0, dot))}&name=${enc(qualified.slice(dot + 1))}`;
  return call('GET', `/v1/table?${q}`).catch(() => null);
}

/** One row that fits the table: a sample value for each primitive column (the roller stamps `__ingest_ts` itself). */
export function sampleRow(tableInfo) {
  if (!tableInfo) return { column: 'value' };
  const row = {};
  for (const col of tableInfo.schema) {
    const v = col.name === '__ingest_ts' ? undefined : sampleValue(col.type);
    if (v !== undefined) row[col.name] = v;
  }
  return row;
}

export const shellQuote = (s) => `'${String(s).replaceAll("'", "'\\''")}'`;

/** A curl sending `rows` as one batch; the key is double-quoted so `$FLOE_SEND_KEY` expands. */
export function sendCommand(sendUrl, key, rows) {
  return [
    `curl -X POST ${shellQuote(sendUrl)}`,
    `  -H "Authorization: Bearer ${key}"`,
    "  -H 'Content-Type: application/json'",
    "  -H 'Idempotency-Key: batch-1'",
    `  -d ${shellQuote(JSON.stringify(rows))}`,
  ].join(' \\\n');
}

export const sendHint = () => h('p', { class: 'hint' }, 'Each batch needs its own Idempotency-Key: the same one again is answered as a duplicate and stores nothing.');
