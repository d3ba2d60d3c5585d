// The grammar of `floe login --catalog <name|id>[:read|write]`, turned into
// the `warehouses[{name|warehouse_id, level}]` of POST /v1/auth/device.
// Catalog names never hold `:` (SQL-friendly), so the last `:` splits off
// the level; a UUID is a warehouse id, anything else a name. Pure.
import type { CatalogRequest, Level } from './api-client.js';
import { usageError } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isLevel = (s: string): s is Level => s === 'read' || s === 'write';

export function parseCatalogSpec(spec: string, fallback?: Level): CatalogRequest {
  const at = spec.lastIndexOf(':');
  const which = (at < 0 ? spec : spec.slice(0, at)).trim();
  const level = at < 0 ? fallback : spec.slice(at + 1).trim();
  if (!which) throw usageError(`--catalog ${JSON.stringify(spec)} names no catalog`);
  if (level !== undefined && !isLevel(level)) throw usageError(`--catalog ${JSON.stringify(spec)}: the level must be read or write`);
  return { ...(UUID.test(which) ? { warehouse_id: which } : { name: which }), ...(level ? { level } : {}) };
}
