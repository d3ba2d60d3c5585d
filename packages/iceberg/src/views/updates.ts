// Applying REST ViewUpdates to view metadata and checking ViewRequirements, following the
// Iceberg view spec and the Java reference (ViewMetadata.Builder).

import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { InvalidUpdateError, stringifyJson, type Schema } from '../metadata/index';
import { collectFailures, type RequirementFailure } from '../metadata/requirements';
import {
  ViewMetadataSchema,
  type ViewMetadata,
  type ViewRequirement,
  type ViewUpdate,
  type ViewUpdateOf,
  type ViewVersion,
} from './model';

/** Number of view versions kept in metadata (spec `version.history.num-entries`). */
export const VERSION_HISTORY_SIZE_PROPERTY = 'version.history.num-entries';
export const VERSION_HISTORY_SIZE_DEFAULT = 10;
/** Java's ViewProperties.REPLACE_DROP_DIALECT_ALLOWED. */
export const REPLACE_DROP_DIALECT_ALLOWED_PROPERTY = 'replace.drop-dialect.allowed';
/** `-1` in set-current-view-version / a version's schema-id: the one added last. */
export const LAST_ADDED = -1;

const MAX_VIEW_FORMAT_VERSION = 1;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function invalid(message: string): never {
  throw new InvalidUpdateError(message);
}

export interface ApplyViewOptions {
  /** Time for version-log entries of versions made current again (not added now). */
  nowMs?: number;
}

interface Builder {
  meta: ViewMetadata & { properties: Record<string, string> };
  isCreate: boolean;
  baseCurrentVersionId: number | null;
  lastAddedSchemaId: number | null;
  lastAddedVersionId: number | null;
  /** Versions added (or re-added) by this commit, by id. */
  addedVersionIds: Set<number>;
  nowMs: number;
}

/**
 * Applies `updates` to `base` (null: a view being created) and returns new metadata;
 * `base` is not modified. Throws InvalidUpdateError (400) for an update that cannot apply.
 */
export function applyViewUpdates(
  base: ViewMetadata | null,
  updates: readonly ViewUpdate[],
  options: ApplyViewOptions = {},
): ViewMetadata {
  const start = base ? structuredClone(base) : emptyViewMetadata();
  const b: Builder = {
    meta: { ...start, properties: { ...(start.properties ?? {}) } },
    isCreate: base === null,
    baseCurrentVersionId: base ? base['current-version-id'] : null,
    lastAddedSchemaId: null,
    lastAddedVersionId: null,
    addedVersionIds: new Set(),
    nowMs: options.nowMs ?? Date.now(),
  };
  for (const u of updates) apply(b, u);
  return finish(b);
}

function emptyViewMetadata(): ViewMetadata {
  return {
    'view-uuid': randomUUID(),
    'format-version': 1,
    location: '',
    properties: {},
    schemas: [],
    'current-version-id': -1,
    versions: [],
    'version-log': [],
  };
}

function apply(b: Builder, u: ViewUpdate): void {
  switch (u.action) {
    case 'assign-uuid': return assignUuid(b, u);
    case 'upgrade-format-version': return upgradeFormatVersion(b, u);
    case 'add-schema': return addSchema(b, u);
    case 'set-location': return setLocation(b, u);
    case 'set-properties': return setProperties(b, u);
    case 'remove-properties': return removeProperties(b, u);
    case 'add-view-version': return addViewVersion(b, u);
    case 'set-current-view-version': return setCurrentViewVersion(b, u);
    default: {
      const action: string = (u as { action: string }).action;
      return invalid(`Unsupported view update: ${action}`);
    }
  }
}

function assignUuid(b: Builder, u: ViewUpdateOf<'assign-uuid'>) {
  if (!UUID.test(u.uuid)) invalid(`Invalid view UUID: ${u.uuid}`);
  const current = b.meta['view-uuid'];
  if (current.toLowerCase() === u.uuid.toLowerCase()) return;
  if (!b.isCreate) invalid(`Cannot reassign view UUID ${current} to ${u.uuid}: UUIDs are assigned only at creation`);
  b.meta['view-uuid'] = u.uuid;
}

function upgradeFormatVersion(b: Builder, u: ViewUpdateOf<'upgrade-format-version'>) {
  const target = u['format-version'];
  if (target > MAX_VIEW_FORMAT_VERSION) {
    invalid(`Cannot upgrade view to unsupported format version: v${target} (supported: v${MAX_VIEW_FORMAT_VERSION})`);
  }
  if (target < b.meta['format-version']) invalid(`Cannot downgrade v${b.meta['format-version']} view to v${target}`);
}

function schemaKey(s: Schema): string {
  return stringifyJson({ fields: s.fields, ids: s['identifier-field-ids'] ?? [] });
}

function addSchema(b: Builder, u: ViewUpdateOf<'add-schema'>) {
  const schemas = b.meta.schemas;
  const key = schemaKey(u.schema);
  // Java's reuseOrCreateNewSchemaId: an identical schema keeps its id; otherwise the
  // request's id unless taken, else highest + 1.
  let id = u.schema['schema-id'] ?? 0;
  for (const s of schemas) {
    const sid = s['schema-id'] ?? 0;
    if (schemaKey(s) === key) {
      b.lastAddedSchemaId = sid;
      return;
    }
    if (sid >= id) id = sid + 1;
  }
  if (id < 0) id = 0;
  b.meta.schemas = [...schemas, { ...u.schema, 'schema-id': id }];
  b.lastAddedSchemaId = id;
}

function setLocation(b: Builder, u: ViewUpdateOf<'set-location'>) {
  if (u.location.trim().length === 0) invalid('Invalid view location: empty');
  b.meta.location = u.location;
}

function setProperties(b: Builder, u: ViewUpdateOf<'set-properties'>) {
  b.meta.properties = { ...b.meta.properties, ...u.updates };
}

function removeProperties(b: Builder, u: ViewUpdateOf<'remove-properties'>) {
  const properties = { ...b.meta.properties };
  for (const key of u.removals) delete properties[key];
  b.meta.properties = properties;
}

// ---------------------------------------------------------------- versions

function sortedMap(m: Record<string, string>): [string, string][] {
  return Object.entries(m).sort(([a], [c]) => (a < c ? -1 : a > c ? 1 : 0));
}

/** Java's sameViewVersion: everything but version-id and timestamp-ms. */
function versionKey(v: ViewVersion): string {
  return stringifyJson({
    summary: sortedMap(v.summary),
    representations: v.representations,
    catalog: v['default-catalog'] ?? null,
    namespace: v['default-namespace'],
    schema: v['schema-id'],
  });
}

function sqlDialects(v: ViewVersion): string[] {
  return v.representations
    .filter((r) => r.type.toLowerCase() === 'sql' && r.dialect !== undefined)
    .map((r) => (r.dialect as string).toLowerCase());
}

function addViewVersion(b: Builder, u: ViewUpdateOf<'add-view-version'>) {
  const version = u['view-version'];
  if (version.representations.length === 0) {
    invalid('Invalid view version: at least one representation is required');
  }
  const seen = new Set<string>();
  for (const dialect of sqlDialects(version)) {
    if (seen.has(dialect)) invalid(`Invalid view version: Cannot add multiple queries for dialect ${dialect}`);
    seen.add(dialect);
  }

  let schemaId = version['schema-id'];
  if (schemaId === LAST_ADDED) {
    if (b.lastAddedSchemaId === null) invalid('Cannot set last added schema: no schema has been added');
    schemaId = b.lastAddedSchemaId;
  }
  if (!b.meta.schemas.some((s) => s['schema-id'] === schemaId)) {
    invalid(`Cannot add version with unknown schema: ${schemaId}`);
  }
  const resolved: ViewVersion = { ...version, 'schema-id': schemaId };

  const key = versionKey(resolved);
  let maxId = 0;
  for (const v of b.meta.versions) {
    if (versionKey(v) === key) {
      // Re-adding a known version reuses it and makes it the "last added" one, so that
      // set-current-view-version -1 after it works (Java only does this for versions
      // added in the same commit).
      b.lastAddedVersionId = v['version-id'];
      return;
    }
    maxId = Math.max(maxId, v['version-id']);
  }
  // Java keeps the client's id unless an existing version has it (or a higher one).
  const id = Math.max(resolved['version-id'], maxId + 1);
  b.meta.versions = [...b.meta.versions, { ...resolved, 'version-id': id }];
  b.addedVersionIds.add(id);
  b.lastAddedVersionId = id;
}

function setCurrentViewVersion(b: Builder, u: ViewUpdateOf<'set-current-view-version'>) {
  let id = u['view-version-id'];
  if (id === LAST_ADDED) {
    if (b.lastAddedVersionId === null) invalid('Cannot set last version id: no current version id has been set');
    id = b.lastAddedVersionId;
  }
  if (!b.meta.versions.some((v) => v['version-id'] === id)) {
    invalid(`Cannot set current version to unknown version: ${id}`);
  }
  b.meta['current-version-id'] = id;
}

// ---------------------------------------------------------------- build

function historySize(properties: Record<string, string>): number {
  const raw = properties[VERSION_HISTORY_SIZE_PROPERTY];
  if (raw === undefined) return VERSION_HISTORY_SIZE_DEFAULT;
  const n = Number(raw.trim());
  if (!Number.isInteger(n) || n <= 0) {
    invalid(`${VERSION_HISTORY_SIZE_PROPERTY} must be a positive integer but was ${raw}`);
  }
  return n;
}

function finish(b: Builder): ViewMetadata {
  const m = b.meta;
  if (!m.location) invalid('Invalid view location: add a set-location update');
  if (m.versions.length === 0) invalid('Invalid view: no versions were added');
  const currentId = m['current-version-id'];
  const current = m.versions.find((v) => v['version-id'] === currentId);
  if (!current) invalid(`Invalid view: current version ${currentId} is not set or unknown`);

  if (b.baseCurrentVersionId !== currentId) {
    // Replacing must not silently drop a dialect (Java's checkIfDialectIsDropped).
    const previous = m.versions.find((v) => v['version-id'] === b.baseCurrentVersionId);
    if (previous && m.properties[REPLACE_DROP_DIALECT_ALLOWED_PROPERTY]?.toLowerCase() !== 'true') {
      const now = new Set(sqlDialects(current));
      const before = sqlDialects(previous);
      if (before.some((d) => !now.has(d))) {
        invalid(
          `Cannot replace view due to loss of view dialects (${REPLACE_DROP_DIALECT_ALLOWED_PROPERTY}=false): ` +
            `previous dialects: [${before.join(', ')}], new dialects: [${[...now].join(', ')}]`,
        );
      }
    }
    // A version added by this commit enters the log at its own timestamp; an older
    // version made current again enters it now.
    m['version-log'] = [
      ...m['version-log'],
      {
        'version-id': currentId,
        'timestamp-ms': b.addedVersionIds.has(currentId) ? current['timestamp-ms'] : BigInt(b.nowMs),
      },
    ];
  }

  // Expire old versions: keep the newest ids, never one added now or the current one.
  const size = historySize(m.properties);
  const mustKeep = new Set([...b.addedVersionIds, currentId]);
  const keepCount = Math.max(size, mustKeep.size);
  if (m.versions.length > keepCount) {
    const byIdDesc = m.versions.map((v) => v['version-id']).sort((a, c) => c - a);
    const keep = new Set(mustKeep);
    for (const id of byIdDesc) {
      if (keep.size >= keepCount) break;
      keep.add(id);
    }
    m.versions = m.versions.filter((v) => keep.has(v['version-id']));
    // The log is kept only from the last entry of an expired version on.
    const log: typeof m['version-log'] = [];
    for (const entry of m['version-log']) {
      if (keep.has(entry['version-id'])) log.push(entry);
      else log.length = 0;
    }
    m['version-log'] = log;
  }

  const result = ViewMetadataSchema.safeParse(m);
  if (!result.success) invalid(`Invalid view metadata: ${z.prettifyError(result.error)}`);
  return result.data;
}

// ---------------------------------------------------------------- requirements

export type ViewRequirementFailure = RequirementFailure<ViewRequirement>;

/**
 * Returns every requirement `current` does not meet (empty: all hold); failures become
 * 409 CommitFailedException. `current` is null when the view does not exist.
 */
export function checkViewRequirements(
  current: ViewMetadata | null,
  requirements: readonly ViewRequirement[],
): ViewRequirementFailure[] {
  return collectFailures(current, requirements, checkOne);
}

function checkOne(meta: ViewMetadata | null, r: ViewRequirement): string | null {
  if (meta === null) return `Requirement failed: view does not exist (${r.type})`;
  switch (r.type) {
    case 'assert-view-uuid': {
      const uuid = meta['view-uuid'];
      return uuid.toLowerCase() === r.uuid.toLowerCase()
        ? null
        : `Requirement failed: view UUID does not match: expected ${uuid} != ${r.uuid}`;
    }
    default: {
      const type: string = (r as { type: string }).type;
      return `Unsupported view requirement: ${type}`;
    }
  }
}
