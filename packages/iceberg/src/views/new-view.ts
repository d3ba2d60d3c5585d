// Metadata for a new view from a REST CreateViewRequest, built through the same update
// path as a commit so both share every check.

import { randomUUID } from 'node:crypto';
import { requireValid, SchemaSchema, zStringMap, type Schema } from '../metadata/model';
import { ViewVersionSchema, type ViewMetadata, type ViewUpdate, type ViewVersion } from './model';
import { LAST_ADDED, applyViewUpdates } from './updates';

export interface NewViewOptions {
  location: string;
  schema: Schema;
  /** CreateViewRequest['view-version']; its version-id and schema-id are replaced. */
  viewVersion: ViewVersion;
  properties?: Record<string, string>;
  viewUuid?: string;
  /** Fallback time; the version-log entry uses the version's own timestamp-ms. */
  nowMs?: number;
}

/** Builds v1 view metadata: version id 1, schema id assigned. Throws InvalidUpdateError. */
export function newViewMetadata(options: NewViewOptions): ViewMetadata {
  // The options come straight from a request body: their shapes are checked before anything spreads or walks them.
  requireValid(SchemaSchema, options.schema, 'schema');
  requireValid(ViewVersionSchema.partial({ 'version-id': true, 'schema-id': true }), options.viewVersion, 'view-version');
  requireValid(zStringMap.nullish(), options.properties, 'properties');
  const updates: ViewUpdate[] = [
    { action: 'assign-uuid', uuid: options.viewUuid ?? randomUUID() },
    { action: 'upgrade-format-version', 'format-version': 1 },
    { action: 'set-location', location: options.location },
    { action: 'set-properties', updates: options.properties ?? {} },
    { action: 'add-schema', schema: options.schema },
    {
      action: 'add-view-version',
      'view-version': { ...options.viewVersion, 'version-id': 1, 'schema-id': LAST_ADDED },
    },
    { action: 'set-current-view-version', 'view-version-id': LAST_ADDED },
  ];
  return applyViewUpdates(null, updates, { nowMs: options.nowMs ?? Date.now() });
}
