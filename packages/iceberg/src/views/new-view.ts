// Metadata for a new view from a REST CreateViewRequest, built through the same update
// path as a commit so both share every check.

import { randomUUID } from 'node:crypto';
import type { Schema } from '../metadata/index';
import type { ViewMetadata, ViewUpdate, ViewVersion } from './model';
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
