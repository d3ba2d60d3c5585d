// Applying REST TableUpdates to table metadata, following what the Java reference
// (TableMetadata.Builder) accepts and refuses. Pure: the base is never mutated.

import { randomUUID } from 'node:crypto';
import { InvalidUpdateError, invalid } from './errors';
import { MAIN_BRANCH, snapshotSequenceNumber } from './helpers';
import {
  MetadataParseError,
  SUPPORTED_FORMAT_VERSIONS,
  toTableMetadata,
  type FormatVersion,
  type MetadataLogEntry,
  type PartitionSpec,
  type Schema,
  type SnapshotRef,
  type SortOrder,
  type TableMetadata,
  type TableUpdate,
  type TableUpdateOf,
} from './model';
import { normalizeTableMetadata, toWrittenShape, type NormalizedTableMetadata } from './normalize';
import {
  lastAssignedFieldId,
  parseTransform,
  sameOrderFields,
  sameSpecFields,
  sourceIdsOf,
  validatePartitionSpec,
  validateSortOrder,
} from './partitioning';
import { highestFieldId, sameSchema, validateSchema } from './schema';

export interface ApplyOptions {
  /** Commit time; becomes last-updated-ms (and the time of rollback log entries). */
  nowMs: number;
}

/** Properties that describe table state and must not be stored (Java RESERVED_PROPERTIES). */
export const RESERVED_PROPERTIES = new Set([
  'format-version', 'uuid', 'snapshot-count', 'current-snapshot-id', 'current-snapshot-summary',
  'current-snapshot-timestamp-ms', 'current-schema', 'default-partition-spec', 'default-sort-order',
]);

const DEFAULT_FORMAT_VERSION: FormatVersion = 2;
const MAX_FORMAT_VERSION = Math.max(...SUPPORTED_FORMAT_VERSIONS);
// Commits come from different machines; Java tolerates this much clock skew.
const ONE_MINUTE = 60_000n;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Mutable state of one applyUpdates call; `meta` is a fresh top-level copy. */
interface Builder {
  meta: NormalizedTableMetadata;
  isCreate: boolean;
  now: bigint;
  changed: boolean;
  lastAddedSchemaId?: number;
  lastAddedSpecId?: number;
  lastAddedOrderId?: number;
  addedSnapshotIds: Set<bigint>;
  /** main-branch moves to snapshots added in this call, in order (for log repair). */
  mainTargets: bigint[];
  removedSnapshots: boolean;
}

/**
 * Applies `updates` in order to `base` (null: a table being created) and returns the new
 * metadata in the shape the Java reference writes. Maintains last-updated-ms,
 * last-sequence-number, next-row-id (v3) and snapshot-log; the metadata-log entry for
 * the previous file is the caller's job (`withMetadataLog`), as it needs its location.
 *
 * When every update is a no-op, `base` itself is returned, so `result === base` tells
 * the caller there is nothing to write (Java skips such commits).
 *
 * Throws InvalidUpdateError for updates the table cannot take (400, or 409 when
 * `retryable`).
 */
export function applyUpdates(
  base: TableMetadata | null,
  updates: readonly TableUpdate[],
  { nowMs }: ApplyOptions,
): TableMetadata {
  const b: Builder = {
    meta: base ? { ...normalizeTableMetadata(base) } : emptyMetadata(updates, nowMs),
    isCreate: base === null,
    now: BigInt(nowMs),
    changed: base === null,
    addedSnapshotIds: new Set(),
    mainTargets: [],
    removedSnapshots: false,
  };
  for (const update of updates) apply(b, update);
  if (!b.changed && base) return base;
  return build(b);
}

// Java's create path starts from an empty builder at the version the request upgrades
// to (so creating a v1 table is not a "downgrade" from the default v2).
function emptyMetadata(updates: readonly TableUpdate[], nowMs: number): NormalizedTableMetadata {
  const upgrade = updates.find((u) => u.action === 'upgrade-format-version');
  const version = upgrade ? checkedVersion(upgrade['format-version']) : DEFAULT_FORMAT_VERSION;
  return {
    'format-version': version,
    'table-uuid': randomUUID(),
    location: '',
    'last-sequence-number': 0n,
    'last-updated-ms': BigInt(nowMs),
    'last-column-id': 0,
    schemas: [],
    'current-schema-id': -1,
    'partition-specs': [],
    'default-spec-id': -1,
    // Java's unpartitioned spec reports 999; the first real field gets 1000.
    'last-partition-id': 999,
    'sort-orders': [],
    'default-sort-order-id': -1,
    properties: {},
    'current-snapshot-id': null,
    'next-row-id': 0n,
    refs: {},
    snapshots: [],
    statistics: [],
    'partition-statistics': [],
    'encryption-keys': [],
    'snapshot-log': [],
    'metadata-log': [],
  };
}

function checkedVersion(v: number): FormatVersion {
  if (!(SUPPORTED_FORMAT_VERSIONS as readonly number[]).includes(v)) {
    invalid(`Cannot upgrade table to unsupported format version: v${v} (supported: v${MAX_FORMAT_VERSION})`);
  }
  return v as FormatVersion;
}

function apply(b: Builder, u: TableUpdate): void {
  switch (u.action) {
    case 'assign-uuid': return assignUuid(b, u);
    case 'upgrade-format-version': return upgradeFormatVersion(b, u);
    case 'add-schema': return addSchema(b, u);
    case 'set-current-schema': return setCurrentSchema(b, u);
    case 'add-spec': return addSpec(b, u);
    case 'set-default-spec': return setDefaultSpec(b, u);
    case 'add-sort-order': return addSortOrder(b, u);
    case 'set-default-sort-order': return setDefaultSortOrder(b, u);
    case 'add-snapshot': return addSnapshot(b, u);
    case 'set-snapshot-ref': return setSnapshotRef(b, u);
    case 'remove-snapshots': return removeSnapshots(b, u);
    case 'remove-snapshot-ref': return removeRef(b, u['ref-name']);
    case 'set-location': return setLocation(b, u);
    case 'set-properties': return setProperties(b, u);
    case 'remove-properties': return removeProperties(b, u);
    case 'set-statistics': return setStatistics(b, u);
    case 'remove-statistics': return removeStatistics(b, u['snapshot-id']);
    case 'set-partition-statistics': return setPartitionStatistics(b, u);
    case 'remove-partition-statistics': return removePartitionStatistics(b, u['snapshot-id']);
    case 'remove-partition-specs': return removePartitionSpecs(b, u);
    case 'remove-schemas': return removeSchemas(b, u);
    case 'add-encryption-key': return addEncryptionKey(b, u);
    case 'remove-encryption-key': return removeEncryptionKey(b, u);
    default: {
      const action: string = (u as { action: string }).action;
      return invalid(`Unsupported table update: ${action}`);
    }
  }
}

// ---------------------------------------------------------------- identity and version

function assignUuid(b: Builder, u: TableUpdateOf<'assign-uuid'>) {
  if (!UUID.test(u.uuid)) invalid(`Invalid table UUID: ${u.uuid}`);
  const current = b.meta['table-uuid'];
  if (current !== undefined && current.toLowerCase() === u.uuid.toLowerCase()) return;
  // Re-assigning the UUID of an existing table would defeat assert-table-uuid; the spec
  // only has tables get one at creation (or a v1 table that never had one).
  if (!b.isCreate && current !== undefined) {
    invalid(`Cannot reassign table UUID ${current} to ${u.uuid}: UUIDs are assigned only at creation`);
  }
  b.meta['table-uuid'] = u.uuid;
  b.changed = true;
}

function upgradeFormatVersion(b: Builder, u: TableUpdateOf<'upgrade-format-version'>) {
  const target = u['format-version'];
  if (target > MAX_FORMAT_VERSION) {
    invalid(`Cannot upgrade table to unsupported format version: v${target} (supported: v${MAX_FORMAT_VERSION})`);
  }
  const current = b.meta['format-version'];
  if (target < current) invalid(`Cannot downgrade v${current} table to v${target}`);
  if (target === current) return;
  const version = checkedVersion(target);
  b.meta['format-version'] = version;
  // Spec: a table upgraded to v3 starts row lineage at next-row-id 0; snapshots written
  // before the upgrade keep no first-row-id.
  if (version === 3 && current < 3) b.meta['next-row-id'] = 0n;
  b.changed = true;
}

// ---------------------------------------------------------------- schemas

function addSchema(b: Builder, u: TableUpdateOf<'add-schema'>) {
  const m = b.meta;
  validateSchema(u.schema, m['format-version']);
  // The deprecated last-column-id covers columns added and dropped in one transaction,
  // whose ids must not be reused; never let the value go backwards.
  const lastColumnId = Math.max(m['last-column-id'], highestFieldId(u.schema), u['last-column-id'] ?? 0);
  if (lastColumnId !== m['last-column-id']) {
    m['last-column-id'] = lastColumnId;
    b.changed = true;
  }

  const existing = m.schemas.find((s) => sameSchema(s, u.schema));
  if (existing) {
    // Like iceberg-rust (and unlike Java), re-adding a known schema makes it the "last
    // added" one, so `set-current-schema -1` after it works.
    b.lastAddedSchemaId = existing['schema-id'];
    return;
  }
  const id = nextId(m.schemas.map((s) => s['schema-id'] ?? 0), 0);
  m.schemas = [...m.schemas, withSchemaId(u.schema, id)];
  b.lastAddedSchemaId = id;
  b.changed = true;
}

function withSchemaId(schema: Schema, id: number): Schema {
  const { type: _t, 'schema-id': _id, ...rest } = schema;
  return { type: 'struct', 'schema-id': id, ...rest };
}

function setCurrentSchema(b: Builder, u: TableUpdateOf<'set-current-schema'>) {
  let id = u['schema-id'];
  if (id === -1) {
    id = b.lastAddedSchemaId ?? invalid('Cannot set current schema to last added schema: no schema has been added');
  }
  if (id === b.meta['current-schema-id']) return;
  if (!b.meta.schemas.some((s) => s['schema-id'] === id)) {
    invalid(`Cannot set current schema to unknown schema: ${id}`);
  }
  b.meta['current-schema-id'] = id;
  b.changed = true;
}

function removeSchemas(b: Builder, u: TableUpdateOf<'remove-schemas'>) {
  const ids = new Set(u['schema-ids']);
  if (ids.has(b.meta['current-schema-id'])) invalid('Cannot remove the current schema');
  const kept = b.meta.schemas.filter((s) => !ids.has(s['schema-id'] ?? 0));
  if (kept.length === b.meta.schemas.length) return;
  b.meta.schemas = kept;
  b.changed = true;
}

function currentSchemaFor(b: Builder, what: string): Schema {
  const schema = b.meta.schemas.find((s) => s['schema-id'] === b.meta['current-schema-id']);
  return schema ?? invalid(`Cannot add ${what} before a current schema is set`);
}

// ---------------------------------------------------------------- partition specs

function addSpec(b: Builder, u: TableUpdateOf<'add-spec'>) {
  const m = b.meta;
  const schema = currentSchemaFor(b, 'a partition spec');
  const spec: PartitionSpec = { ...u.spec, fields: assignPartitionFieldIds(b, u.spec) };

  const existing = m['partition-specs'].find((s) => sameSpecFields(s, spec));
  if (existing) {
    b.lastAddedSpecId = existing['spec-id'];
    return;
  }
  validatePartitionSpec(spec, schema, m['format-version']);
  const id = nextId(m['partition-specs'].map((s) => s['spec-id'] ?? 0), 0);
  const { 'spec-id': _id, ...rest } = spec;
  m['partition-specs'] = [...m['partition-specs'], { 'spec-id': id, ...rest }];
  m['last-partition-id'] = Math.max(m['last-partition-id'], lastAssignedFieldId(spec));
  b.lastAddedSpecId = id;
  b.changed = true;
}

// Clients normally send field ids. Where one is missing: v1 ids are positional from 1000
// (what v1 readers infer); in v2+ a field with the same source and transform as one in
// any earlier spec keeps that field's id, anything else gets a never-used id.
function assignPartitionFieldIds(b: Builder, spec: PartitionSpec): PartitionSpec['fields'] {
  if (spec.fields.every((f) => f['field-id'] !== undefined)) return spec.fields;
  const v1 = b.meta['format-version'] === 1;
  const known = new Map<string, number>();
  for (const s of b.meta['partition-specs']) {
    for (const f of s.fields) {
      if (f['field-id'] !== undefined) known.set(partitionKey(f), f['field-id']);
    }
  }
  let last = Math.max(b.meta['last-partition-id'], ...spec.fields.map((f) => f['field-id'] ?? 0));
  return spec.fields.map((f, i) => {
    if (f['field-id'] !== undefined) return f;
    const id = v1 ? 1000 + i : (known.get(partitionKey(f)) ?? ++last);
    return { ...f, 'field-id': id };
  });
}

const partitionKey = (f: PartitionSpec['fields'][number]) =>
  `${sourceIdsOf(f).join(',')}:${parseTransform(f.transform).text.trim().toLowerCase()}`;

function setDefaultSpec(b: Builder, u: TableUpdateOf<'set-default-spec'>) {
  let id = u['spec-id'];
  if (id === -1) id = b.lastAddedSpecId ?? invalid('Cannot set last added spec: no spec has been added');
  if (id === b.meta['default-spec-id']) return;
  if (!b.meta['partition-specs'].some((s) => s['spec-id'] === id)) {
    invalid(`Cannot set default partition spec to unknown spec: ${id}`);
  }
  b.meta['default-spec-id'] = id;
  b.changed = true;
}

function removePartitionSpecs(b: Builder, u: TableUpdateOf<'remove-partition-specs'>) {
  const ids = new Set(u['spec-ids']);
  if (ids.has(b.meta['default-spec-id'])) invalid('Cannot remove the default partition spec');
  const kept = b.meta['partition-specs'].filter((s) => !ids.has(s['spec-id'] ?? 0));
  if (kept.length === b.meta['partition-specs'].length) return;
  b.meta['partition-specs'] = kept;
  b.changed = true;
}

// ---------------------------------------------------------------- sort orders

function addSortOrder(b: Builder, u: TableUpdateOf<'add-sort-order'>) {
  const m = b.meta;
  const order = u['sort-order'];
  const existing = m['sort-orders'].find((o) => sameOrderFields(o, order));
  if (existing) {
    b.lastAddedOrderId = existing['order-id'];
    return;
  }
  validateSortOrder(order, currentSchemaFor(b, 'a sort order'));
  // The unsorted order is always id 0; sorted orders count from 1 (Java).
  const id = order.fields.length === 0 ? 0 : nextId(m['sort-orders'].map((o) => o['order-id'] ?? 0), 1);
  const { 'order-id': _id, ...rest } = order;
  m['sort-orders'] = [...m['sort-orders'], { 'order-id': id, ...rest }];
  b.lastAddedOrderId = id;
  b.changed = true;
}

function setDefaultSortOrder(b: Builder, u: TableUpdateOf<'set-default-sort-order'>) {
  let id = u['sort-order-id'];
  if (id === -1) id = b.lastAddedOrderId ?? invalid('Cannot set last added sort order: no sort order has been added');
  if (id === b.meta['default-sort-order-id']) return;
  if (!b.meta['sort-orders'].some((o) => o['order-id'] === id)) {
    invalid(`Cannot set default sort order to unknown sort order: ${id}`);
  }
  b.meta['default-sort-order-id'] = id;
  b.changed = true;
}

// ---------------------------------------------------------------- snapshots and refs

function addSnapshot(b: Builder, u: TableUpdateOf<'add-snapshot'>) {
  const m = b.meta;
  let snapshot = u.snapshot;
  const id = snapshot['snapshot-id'];
  const v = m['format-version'];
  if (m.schemas.length === 0) invalid('Attempting to add a snapshot before a schema is added');
  if (m['partition-specs'].length === 0) invalid('Attempting to add a snapshot before a partition spec is added');
  if (m['sort-orders'].length === 0) invalid('Attempting to add a snapshot before a sort order is added');
  if (m.snapshots.some((s) => s['snapshot-id'] === id)) invalid(`Snapshot already exists for id: ${id}`);
  if (snapshot['parent-snapshot-id'] === id) invalid(`Snapshot ${id} cannot be its own parent`);

  if (v >= 2) {
    if (snapshot['manifest-list'] === undefined) invalid(`Snapshot ${id} has no manifest-list, required in v${v}`);
    const seq = snapshot['sequence-number'];
    if (seq === undefined) invalid(`Snapshot ${id} has no sequence-number, required in v${v}`);
    // Stale, not malformed: the client built it against an older table state.
    if (seq <= m['last-sequence-number']) {
      invalid(
        `Cannot add snapshot with sequence number ${seq} older than last sequence number ${m['last-sequence-number']}`,
        { retryable: true },
      );
    }
    m['last-sequence-number'] = seq;
  }

  if (v >= 3) {
    const addedRows = snapshot['added-rows'];
    if (addedRows === undefined || addedRows === null) invalid(`Cannot add snapshot ${id}: added-rows is required in v${v}`);
    if (addedRows < 0n) invalid(`Cannot add snapshot ${id}: added-rows is negative (${addedRows})`);
    let firstRowId = snapshot['first-row-id'];
    if (firstRowId === undefined || firstRowId === null) {
      // The catalog assigns the row id range when the writer left it open.
      firstRowId = m['next-row-id'];
      snapshot = { ...snapshot, 'first-row-id': firstRowId };
    } else if (firstRowId < m['next-row-id']) {
      invalid(`Cannot add a snapshot, first-row-id is behind table next-row-id: ${firstRowId} < ${m['next-row-id']}`, {
        retryable: true,
      });
    }
    // Java adds added-rows to next-row-id; starting from first-row-id instead keeps
    // next-row-id above every assigned id even if a writer skipped ahead.
    m['next-row-id'] = firstRowId + addedRows;
  }

  m.snapshots = [...m.snapshots, snapshot];
  b.addedSnapshotIds.add(id);
  b.changed = true;
}

function setSnapshotRef(b: Builder, u: TableUpdateOf<'set-snapshot-ref'>) {
  const m = b.meta;
  const name = u['ref-name'];
  const { action: _a, 'ref-name': _n, ...refFields } = u;
  const ref: SnapshotRef = refFields;
  const existing = m.refs[name];
  if (existing && sameRef(existing, ref)) return;

  const id = ref['snapshot-id'];
  const snapshot = m.snapshots.find((s) => s['snapshot-id'] === id);
  if (!snapshot) invalid(`Cannot set ${name} to unknown snapshot: ${id}`);
  if (name === MAIN_BRANCH && ref.type !== 'branch') invalid(`Cannot set ${MAIN_BRANCH} to a tag, it must be a branch`);
  checkRetention(name, ref);

  if (name === MAIN_BRANCH) {
    m['current-snapshot-id'] = id;
    // A snapshot committed now is logged at its own time; a rollback at commit time.
    const added = b.addedSnapshotIds.has(id);
    const at = added ? snapshot['timestamp-ms'] : b.now;
    const last = m['snapshot-log'].at(-1);
    if (last && at - last['timestamp-ms'] < -ONE_MINUTE) {
      invalid(`Invalid snapshot timestamp ${at}: before last snapshot log entry at ${last['timestamp-ms']}`);
    }
    m['snapshot-log'] = [...m['snapshot-log'], { 'timestamp-ms': at, 'snapshot-id': id }];
    if (added) b.mainTargets.push(id);
  }
  m.refs = { ...m.refs, [name]: ref };
  b.changed = true;
}

function sameRef(a: SnapshotRef, b: SnapshotRef): boolean {
  const n = (v: unknown) => v ?? null;
  return (
    a['snapshot-id'] === b['snapshot-id'] &&
    a.type === b.type &&
    n(a['min-snapshots-to-keep']) === n(b['min-snapshots-to-keep']) &&
    n(a['max-snapshot-age-ms']) === n(b['max-snapshot-age-ms']) &&
    n(a['max-ref-age-ms']) === n(b['max-ref-age-ms'])
  );
}

// Java's SnapshotRef builder rules.
function checkRetention(name: string, ref: SnapshotRef) {
  const min = ref['min-snapshots-to-keep'];
  const maxSnapshotAge = ref['max-snapshot-age-ms'];
  const maxRefAge = ref['max-ref-age-ms'];
  if (ref.type === 'tag') {
    if (min !== undefined && min !== null) invalid(`Tags do not support setting minSnapshotsToKeep (tag ${name})`);
    if (maxSnapshotAge !== undefined && maxSnapshotAge !== null) {
      invalid(`Tags do not support setting maxSnapshotAgeMs (tag ${name})`);
    }
  }
  if (min !== undefined && min !== null && min <= 0) invalid(`Min snapshots to keep must be greater than 0 (ref ${name})`);
  if (maxSnapshotAge !== undefined && maxSnapshotAge !== null && maxSnapshotAge <= 0n) {
    invalid(`Max snapshot age must be greater than 0 ms (ref ${name})`);
  }
  if (maxRefAge !== undefined && maxRefAge !== null && maxRefAge <= 0n) {
    invalid(`Max reference age must be greater than 0 (ref ${name})`);
  }
}

function removeRef(b: Builder, name: string) {
  const m = b.meta;
  if (name === MAIN_BRANCH && m['current-snapshot-id'] !== null) {
    m['current-snapshot-id'] = null;
    b.changed = true;
  }
  if (!(name in m.refs)) return;
  const { [name]: _removed, ...rest } = m.refs;
  m.refs = rest;
  b.changed = true;
}

function removeSnapshots(b: Builder, u: TableUpdateOf<'remove-snapshots'>) {
  const m = b.meta;
  const ids = new Set(u['snapshot-ids']);
  const kept = m.snapshots.filter((s) => !ids.has(s['snapshot-id']));
  if (kept.length === m.snapshots.length) return;
  const removed = new Set(m.snapshots.filter((s) => ids.has(s['snapshot-id'])).map((s) => s['snapshot-id']));
  m.snapshots = kept;
  // Statistics describe snapshots; they go with them (Java).
  m.statistics = m.statistics.filter((s) => !removed.has(s['snapshot-id']));
  m['partition-statistics'] = m['partition-statistics'].filter((s) => !removed.has(s['snapshot-id']));
  // Refs to removed snapshots dangle; removing main clears the current snapshot.
  for (const [name, ref] of Object.entries(m.refs)) {
    if (removed.has(ref['snapshot-id'])) removeRef(b, name);
  }
  b.removedSnapshots = true;
  b.changed = true;
}

// ---------------------------------------------------------------- location, properties

function setLocation(b: Builder, u: TableUpdateOf<'set-location'>) {
  // Java strips the trailing slash so "<location>/metadata" joins cleanly.
  const location = u.location.replace(/\/+$/, '');
  if (location.length === 0) invalid('Invalid table location: empty');
  if (location === b.meta.location) return;
  b.meta.location = location;
  b.changed = true;
}

function setProperties(b: Builder, u: TableUpdateOf<'set-properties'>) {
  const keys = Object.keys(u.updates);
  const reserved = keys.filter((k) => RESERVED_PROPERTIES.has(k));
  if (reserved.length > 0) {
    invalid(`Table properties should not contain reserved properties, but got: ${reserved.join(', ')}`);
  }
  if (keys.length === 0) return;
  b.meta.properties = { ...b.meta.properties, ...u.updates };
  b.changed = true;
}

function removeProperties(b: Builder, u: TableUpdateOf<'remove-properties'>) {
  if (u.removals.length === 0) return;
  const properties = { ...b.meta.properties };
  for (const key of u.removals) delete properties[key];
  b.meta.properties = properties;
  b.changed = true;
}

// ---------------------------------------------------------------- statistics, keys

function setStatistics(b: Builder, u: TableUpdateOf<'set-statistics'>) {
  const id = u.statistics['snapshot-id'];
  const legacy = u['snapshot-id'];
  if (legacy !== undefined && legacy !== null && legacy !== id) {
    invalid(`set-statistics snapshot-id ${legacy} does not match statistics snapshot-id ${id}`);
  }
  // One statistics file per snapshot: the new one replaces any earlier one.
  b.meta.statistics = [...b.meta.statistics.filter((s) => s['snapshot-id'] !== id), u.statistics];
  b.changed = true;
}

function removeStatistics(b: Builder, snapshotId: bigint) {
  const kept = b.meta.statistics.filter((s) => s['snapshot-id'] !== snapshotId);
  if (kept.length === b.meta.statistics.length) return;
  b.meta.statistics = kept;
  b.changed = true;
}

function setPartitionStatistics(b: Builder, u: TableUpdateOf<'set-partition-statistics'>) {
  const file = u['partition-statistics'];
  const id = file['snapshot-id'];
  b.meta['partition-statistics'] = [...b.meta['partition-statistics'].filter((s) => s['snapshot-id'] !== id), file];
  b.changed = true;
}

function removePartitionStatistics(b: Builder, snapshotId: bigint) {
  const kept = b.meta['partition-statistics'].filter((s) => s['snapshot-id'] !== snapshotId);
  if (kept.length === b.meta['partition-statistics'].length) return;
  b.meta['partition-statistics'] = kept;
  b.changed = true;
}

function addEncryptionKey(b: Builder, u: TableUpdateOf<'add-encryption-key'>) {
  const key = u['encryption-key'];
  if (b.meta['encryption-keys'].some((k) => k['key-id'] === key['key-id'])) return;
  b.meta['encryption-keys'] = [...b.meta['encryption-keys'], key];
  b.changed = true;
}

function removeEncryptionKey(b: Builder, u: TableUpdateOf<'remove-encryption-key'>) {
  const kept = b.meta['encryption-keys'].filter((k) => k['key-id'] !== u['key-id']);
  if (kept.length === b.meta['encryption-keys'].length) return;
  b.meta['encryption-keys'] = kept;
  b.changed = true;
}

// ---------------------------------------------------------------- build

function build(b: Builder): TableMetadata {
  const m = b.meta;
  const v = m['format-version'];
  m['last-updated-ms'] = b.now;

  if (!m.location) invalid('Table location is required: add a set-location update');
  if (v >= 2 && !m['table-uuid']) invalid(`UUID is required in format v${v}`);

  const schema = m.schemas.find((s) => s['schema-id'] === m['current-schema-id']);
  if (!schema) invalid(`Table has no current schema (current-schema-id ${m['current-schema-id']})`);
  const spec = m['partition-specs'].find((s) => s['spec-id'] === m['default-spec-id']);
  if (!spec) invalid(`Table has no default partition spec (default-spec-id ${m['default-spec-id']})`);
  const order = m['sort-orders'].find((o) => o['order-id'] === m['default-sort-order-id']);
  if (!order) invalid(`Table has no default sort order (default-sort-order-id ${m['default-sort-order-id']})`);
  // The defaults are what writers use next, so they must fit the current schema.
  validatePartitionSpec(spec, schema, v, { strict: false });
  validateSortOrder(order, schema);

  const ids = new Set(m.snapshots.map((s) => s['snapshot-id']));
  for (const [name, ref] of Object.entries(m.refs)) {
    if (!ids.has(ref['snapshot-id'])) invalid(`Ref ${name} points to unknown snapshot ${ref['snapshot-id']}`);
  }
  const main = m.refs[MAIN_BRANCH];
  if ((main?.['snapshot-id'] ?? null) !== m['current-snapshot-id']) {
    invalid(`Current snapshot ${m['current-snapshot-id']} does not match main branch ${main?.['snapshot-id'] ?? null}`);
  }
  if (v >= 2) {
    for (const s of m.snapshots) {
      if (snapshotSequenceNumber(s) > m['last-sequence-number']) {
        invalid(`Snapshot ${s['snapshot-id']} has sequence number greater than last sequence number ${m['last-sequence-number']}`);
      }
    }
  }

  m['snapshot-log'] = repairSnapshotLog(b);
  const last = m['snapshot-log'].at(-1);
  if (last && b.now - last['timestamp-ms'] < -ONE_MINUTE) {
    invalid(`Invalid update timestamp ${b.now}: before last snapshot log entry at ${last['timestamp-ms']}`);
  }

  try {
    // Re-validating through the model also puts every key in canonical order.
    return toTableMetadata(toWrittenShape(m));
  } catch (err) {
    if (err instanceof MetadataParseError) throw new InvalidUpdateError(err.message);
    throw err;
  }
}

/**
 * Java's updateSnapshotLog: snapshots added and made current in this commit but then
 * replaced as current ("intermediate" ones of a transaction) leave the log, and after
 * snapshots were removed, the history before an entry whose snapshot is gone is dropped
 * so time travel never attributes a gap to the wrong snapshot.
 */
function repairSnapshotLog(b: Builder) {
  const m = b.meta;
  const current = m['current-snapshot-id'];
  const intermediate = new Set(b.mainTargets.filter((id) => id !== current));
  if (intermediate.size === 0 && !b.removedSnapshots) return m['snapshot-log'];

  const ids = new Set(m.snapshots.map((s) => s['snapshot-id']));
  let log: typeof m['snapshot-log'] = [];
  for (const entry of m['snapshot-log']) {
    if (ids.has(entry['snapshot-id'])) {
      if (!intermediate.has(entry['snapshot-id'])) log.push(entry);
    } else if (b.removedSnapshots) {
      log = [];
    }
  }
  if (current !== null && ids.has(current) && log.at(-1)?.['snapshot-id'] !== current) {
    invalid('Cannot set invalid snapshot log: latest entry is not the current snapshot');
  }
  return log;
}

function nextId(ids: number[], first: number): number {
  return ids.length === 0 ? first : Math.max(first, Math.max(...ids) + 1);
}

// ---------------------------------------------------------------- metadata log

export const PREVIOUS_VERSIONS_MAX_PROPERTY = 'write.metadata.previous-versions-max';
export const PREVIOUS_VERSIONS_MAX_DEFAULT = 100;

/**
 * Records `prev` (stored at `prevLocation`) in `next`'s metadata-log, as Java does when
 * writing a new metadata file: the entry carries prev's last-updated-ms, and the log
 * keeps at most `maxPrevious` entries (default: the table property
 * write.metadata.previous-versions-max, else 100; never less than 1), dropping oldest.
 */
export function withMetadataLog(
  prev: TableMetadata,
  prevLocation: string,
  next: TableMetadata,
  maxPrevious?: number,
): TableMetadata {
  const configured = Number.parseInt(next.properties?.[PREVIOUS_VERSIONS_MAX_PROPERTY] ?? '', 10);
  const max = Math.max(1, maxPrevious ?? (Number.isNaN(configured) ? PREVIOUS_VERSIONS_MAX_DEFAULT : configured));
  const previous = prev['metadata-log'] ?? [];
  const kept = previous.length >= max ? previous.slice(previous.length - max + 1) : previous;
  const entry: MetadataLogEntry = { 'timestamp-ms': prev['last-updated-ms'], 'metadata-file': prevLocation };
  return { ...next, 'metadata-log': [...kept, entry] };
}
