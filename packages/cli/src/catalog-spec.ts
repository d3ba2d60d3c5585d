// The grammar of `floe login --catalog <name|id>[:read|write]`, turned into
// the `warehouses[{name|warehouse_id, level}]` of POST /v1/auth/device.
// Catalog names never hold `:` (SQL-friendly), so the last `:` splits off
// the level; a UUID is a warehouse id, anything else a name. Pure.
import type { CatalogRequest, Level } from './api-client.js';
import { usageError } from './errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isLevel = (s: string): s is Level => s === 'read' || s === 'write';

/** `<catalog>[:<level>]` split at the last `:`: the catalog, and the level text when one is written. */
export function splitCatalogLevel(spec: string): { catalog: string; level?: string } {
  const at = spec.lastIndexOf(':');
  return at < 0 ? { catalog: spec.trim() } : { catalog: spec.slice(0, at).trim(), level: spec.slice(at + 1).trim() };
}

export function parseCatalogSpec(spec: string, fallback?: Level): CatalogRequest {
  const split = splitCatalogLevel(spec);
  const which = split.catalog;
  const level = split.level ?? fallback;
  if (!which) throw usageError(`--catalog ${JSON.stringify(spec)} names no catalog`);
  if (level !== undefined && !isLevel(level)) throw usageError(`--catalog ${JSON.stringify(spec)}: the level must be read or write`);
  return { ...(UUID.test(which) ? { warehouse_id: which } : { name: which }), ...(level ? { level } : {}) };
}
