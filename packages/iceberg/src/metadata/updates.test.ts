import { InvalidUpdateError } from './errors';
import { currentSnapshot, currentSnapshotId, refsOf } from './helpers';
import { parseJson } from './json';
import {
  parseTableMetadata,
  parseTableUpdates,
  serializeTableMetadata,
  type Snapshot,
  type TableMetadata,
  type TableUpdate,
} from './model';
import { newTableMetadata } from './new-table';
import { applyUpdates, withMetadataLog } from './updates';
import { V1_JAVA, V1_LEGACY, V2_EMPTY, V2_JAVA, V3_SAMPLE } from './testdata/samples';

const NOW = 1717500000000;
const at = { nowMs: NOW };
const apply = (base: TableMetadata | null, ...updates: TableUpdate[]) => applyUpdates(base, updates, at);
const expectInvalid = (fn: () => unknown, message: RegExp, retryable = false) => {
  let error: unknown;
  try {
    fn();
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(InvalidUpdateError);
  expect((error as Error).message).toMatch(message);
  expect((error as InvalidUpdateError).retryable).toBe(retryable);
};

const v2Empty = () => parseTableMetadata(V2_EMPTY);
const v2 = () => parseTableMetadata(V2_JAVA);
const v3 = () => parseTableMetadata(V3_SAMPLE);
const BIG = 9223372036854775807n;

const snapshot = (id: bigint, extra: Partial<Snapshot> = {}): Snapshot => ({
  'snapshot-id': id,
  'timestamp-ms': BigInt(NOW - 1000),
  'manifest-list': `s3://b/snap-${id}.avro`,
  summary: { operation: 'append' },
  'schema-id': 0,
  ...extra,
});

describe('applyUpdates: general', () => {
  it('never mutates the base and returns it as-is when nothing changes', () => {
    const base = v2();
    const before = serializeTableMetadata(base);
    const next = apply(base, { action: 'set-properties', updates: { a: '1' } });
    expect(serializeTableMetadata(base)).toBe(before);
    expect(next).not.toBe(base);
    expect(next['last-updated-ms']).toBe(BigInt(NOW));
    expect(apply(base, { action: 'set-current-schema', 'schema-id': 1 }, { action: 'remove-statistics', 'snapshot-id': 1n })).toBe(base);
    expect(apply(base)).toBe(base);
  });

  it('keeps unknown keys through updates and serialises the result', () => {
    const next = apply(v2(), { action: 'set-properties', updates: { a: '1' } });
    const json = parseJson(serializeTableMetadata(next)) as Record<string, unknown>;
    expect(json['x-writer-extension']).toEqual({ big: 12345678901234567890n, ratio: 0.25, list: [1, -9007199254740993n] });
    expect(json['current-snapshot-id']).toBe(BIG);
  });

  it('accepts updates parsed from a REST body', () => {
    const updates = parseTableUpdates(parseJson('[{"action":"set-snapshot-ref","ref-name":"t","type":"tag","snapshot-id":9223372036854775807}]'));
    expect(refsOf(applyUpdates(v2(), updates, at)).t).toEqual({ 'snapshot-id': BIG, type: 'tag' });
  });
});

describe('identity and format version', () => {
  it('assign-uuid: same uuid is a no-op, another one on an existing table is refused', () => {
    const base = v2();
    expect(apply(base, { action: 'assign-uuid', uuid: '9C12D441-03FE-4693-9A96-A0705DDF69C1' })).toBe(base);
    expectInvalid(() => apply(base, { action: 'assign-uuid', uuid: '11111111-2222-4333-8444-555555555555' }), /Cannot reassign table UUID/);
    expectInvalid(() => apply(base, { action: 'assign-uuid', uuid: 'nope' }), /Invalid table UUID/);
  });

  it('assign-uuid gives a legacy v1 table its first uuid', () => {
    const next = apply(parseTableMetadata(V1_LEGACY), { action: 'assign-uuid', uuid: '11111111-2222-4333-8444-555555555555' });
    expect(next['table-uuid']).toBe('11111111-2222-4333-8444-555555555555');
  });

  it('upgrades 1 → 2 → 3, reshaping the metadata for each version', () => {
    const v1 = parseTableMetadata(V1_JAVA);
    const two = apply(v1, { action: 'upgrade-format-version', 'format-version': 2 });
    expect(two['format-version']).toBe(2);
    expect(two.schema).toBeUndefined();
    expect(two['partition-spec']).toBeUndefined();
    expect(two['last-sequence-number']).toBe(0n);
    expect(two['next-row-id']).toBeUndefined();
    expect(two.snapshots![0]['sequence-number']).toBeUndefined(); // read as 0

    const three = apply(two, { action: 'upgrade-format-version', 'format-version': 3 });
    expect(three['format-version']).toBe(3);
    expect(three['next-row-id']).toBe(0n);
    expect(three.snapshots![0]['first-row-id']).toBeUndefined(); // pre-upgrade snapshots keep no row ids

    // straight from 1 to 3 in one commit
    expect(apply(v1, { action: 'upgrade-format-version', 'format-version': 3 })['next-row-id']).toBe(0n);
  });

  it('upgrade to the same version is a no-op; downgrades and unsupported versions are refused', () => {
    const base = v2();
    expect(apply(base, { action: 'upgrade-format-version', 'format-version': 2 })).toBe(base);
    expectInvalid(() => apply(base, { action: 'upgrade-format-version', 'format-version': 1 }), /Cannot downgrade v2 table to v1/);
    expectInvalid(() => apply(base, { action: 'upgrade-format-version', 'format-version': 4 }), /unsupported format version: v4/);
  });

  it('v1 → v2 needs a table uuid', () => {
    expectInvalid(() => apply(parseTableMetadata(V1_LEGACY), { action: 'upgrade-format-version', 'format-version': 2 }), /UUID is required in format v2/);
  });
});

describe('schemas', () => {
  const evolved = {
    type: 'struct' as const,
    'schema-id': 99,
    fields: [
      { id: 1, name: 'id', required: true, type: 'long' },
      { id: 2, name: 'ts', required: false, type: 'timestamp' },
      { id: 3, name: 'note', required: false, type: 'string' },
    ],
  };

  it('add-schema assigns the next id, raises last-column-id; set-current-schema -1 picks it', () => {
    const next = apply(v2Empty(), { action: 'add-schema', schema: evolved }, { action: 'set-current-schema', 'schema-id': -1 });
    expect(next.schemas!.map((s) => s['schema-id'])).toEqual([0, 1]);
    expect(next['current-schema-id']).toBe(1);
    expect(next['last-column-id']).toBe(3);
  });

  it('honours a higher deprecated last-column-id (columns added and dropped in one transaction)', () => {
    const next = apply(v2Empty(), { action: 'add-schema', schema: evolved, 'last-column-id': 5 });
    expect(next['last-column-id']).toBe(5);
  });

  it('re-adding an existing schema reuses its id and counts as last added', () => {
    const base = apply(v2Empty(), { action: 'add-schema', schema: evolved }, { action: 'set-current-schema', 'schema-id': -1 });
    const back = apply(base, { action: 'add-schema', schema: { ...base.schemas![0], 'schema-id': 5 } }, { action: 'set-current-schema', 'schema-id': -1 });
    expect(back.schemas).toHaveLength(2);
    expect(back['current-schema-id']).toBe(0);
  });

  it('refuses unknown schema ids, -1 without an added schema, and invalid schemas', () => {
    expectInvalid(() => apply(v2Empty(), { action: 'set-current-schema', 'schema-id': 4 }), /unknown schema: 4/);
    expectInvalid(() => apply(v2Empty(), { action: 'set-current-schema', 'schema-id': -1 }), /no schema has been added/);
    expectInvalid(
      () => apply(v2Empty(), { action: 'add-schema', schema: { type: 'struct', fields: [{ id: 1, name: 'n', required: false, type: 'timestamp_ns' }] } }),
      /timestamp_ns is not supported until v3/,
    );
    expectInvalid(
      () => apply(v2Empty(), { action: 'add-schema', schema: { type: 'struct', fields: [{ id: 1, name: 'n', required: false, type: 'int', 'initial-default': 3 }] } }),
      /non-null default is not supported until v3/,
    );
  });

  it('v3 accepts v3 types and defaults, but not non-null defaults for variant', () => {
    const ok = apply(v3(), {
      action: 'add-schema',
      schema: { type: 'struct', fields: [...v3().schemas![0].fields, { id: 10, name: 'n', required: false, type: 'int', 'initial-default': 3, 'write-default': 4 }] },
    });
    expect(ok.schemas).toHaveLength(2);
    expectInvalid(
      () => apply(v3(), { action: 'add-schema', schema: { type: 'struct', fields: [{ id: 1, name: 'v', required: false, type: 'variant', 'write-default': 1 }] } }),
      /variant columns must default to null/,
    );
  });

  it('remove-schemas removes old schemas but never the current one', () => {
    expect(apply(v2(), { action: 'remove-schemas', 'schema-ids': [0] }).schemas!.map((s) => s['schema-id'])).toEqual([1]);
    expectInvalid(() => apply(v2(), { action: 'remove-schemas', 'schema-ids': [1] }), /Cannot remove the current schema/);
  });
});

describe('partition specs and sort orders', () => {
  it('add-spec + set-default-spec -1; missing field ids are reused by source/transform or fresh', () => {
    const next = apply(
      v2(),
      {
        action: 'add-spec',
        spec: { fields: [{ 'source-id': 1, name: 'order_id_bucket', transform: 'bucket[16]' }, { 'source-id': 1, name: 'id_trunc', transform: 'truncate[4]' }] },
      },
      { action: 'set-default-spec', 'spec-id': -1 },
    );
    expect(next['partition-specs']![1]).toEqual({
      'spec-id': 1,
      fields: [
        { 'source-id': 1, 'field-id': 1000, name: 'order_id_bucket', transform: 'bucket[16]' },
        { 'source-id': 1, 'field-id': 1001, name: 'id_trunc', transform: 'truncate[4]' },
      ],
    });
    expect(next['default-spec-id']).toBe(1);
    expect(next['last-partition-id']).toBe(1001);
  });

  it('an equivalent spec reuses the existing spec id', () => {
    const base = v2();
    const same = apply(base, { action: 'add-spec', spec: { fields: [{ 'source-id': 1, 'field-id': 1000, name: 'order_id_bucket', transform: 'bucket[16]' }] } }, { action: 'set-default-spec', 'spec-id': -1 });
    expect(same).toBe(base);
  });

  it('refuses specs that do not fit the schema, v1 non-sequential ids, unknown default, removing the default', () => {
    expectInvalid(() => apply(v2(), { action: 'add-spec', spec: { fields: [{ 'source-id': 3, name: 'x', transform: 'identity' }] } }), /not a primitive type/);
    expectInvalid(() => apply(v2(), { action: 'add-spec', spec: { fields: [{ 'source-id': 4, name: 'x', transform: 'identity' }] } }), /nested in a list or map/);
    expectInvalid(() => apply(v2(), { action: 'add-spec', spec: { fields: [{ 'source-id': 1, name: 'a', transform: 'identity' }, { 'source-id': 2, name: 'a', transform: 'bucket[2]' }] } }), /duplicate partition field name/);
    expectInvalid(
      () => apply(parseTableMetadata(V1_JAVA), { action: 'add-spec', spec: { fields: [{ 'source-id': 1, 'field-id': 1005, name: 'b', transform: 'bucket[4]' }] } }),
      /v1 requires sequential partition field ids from 1000/,
    );
    expectInvalid(() => apply(v2(), { action: 'set-default-spec', 'spec-id': 3 }), /unknown spec: 3/);
    expectInvalid(() => apply(v2(), { action: 'set-default-spec', 'spec-id': -1 }), /no spec has been added/);
    expectInvalid(() => apply(v2(), { action: 'remove-partition-specs', 'spec-ids': [0] }), /Cannot remove the default partition spec/);
  });

  it('remove-partition-specs drops unused specs', () => {
    const base = apply(v2(), { action: 'add-spec', spec: { fields: [] } }, { action: 'set-default-spec', 'spec-id': -1 });
    expect(apply(base, { action: 'remove-partition-specs', 'spec-ids': [0] })['partition-specs']).toEqual([{ 'spec-id': 1, fields: [] }]);
  });

  it('add-sort-order assigns ids from 1 (0 is unsorted), set-default-sort-order -1 picks it', () => {
    const next = apply(
      v2Empty(),
      { action: 'add-sort-order', 'sort-order': { 'order-id': 42, fields: [{ transform: 'day', 'source-id': 2, direction: 'asc', 'null-order': 'nulls-last' }] } },
      { action: 'set-default-sort-order', 'sort-order-id': -1 },
    );
    expect(next['sort-orders']![1]['order-id']).toBe(1);
    expect(next['default-sort-order-id']).toBe(1);
    const unsorted = apply(next, { action: 'add-sort-order', 'sort-order': { fields: [] } }, { action: 'set-default-sort-order', 'sort-order-id': -1 });
    expect(unsorted['default-sort-order-id']).toBe(0);
    expect(unsorted['sort-orders']).toHaveLength(2);
  });

  it('refuses sort orders on unknown columns and unknown default order ids', () => {
    expectInvalid(() => apply(v2Empty(), { action: 'add-sort-order', 'sort-order': { fields: [{ transform: 'identity', 'source-id': 9, direction: 'asc', 'null-order': 'nulls-first' }] } }), /cannot find source column 9/);
    expectInvalid(() => apply(v2Empty(), { action: 'set-default-sort-order', 'sort-order-id': 5 }), /unknown sort order: 5/);
    expectInvalid(() => apply(v2Empty(), { action: 'set-default-sort-order', 'sort-order-id': -1 }), /no sort order has been added/);
  });

  it('refuses a current schema that the default spec no longer fits', () => {
    expectInvalid(
      () => apply(v2(), { action: 'add-schema', schema: { type: 'struct', fields: [{ id: 8, name: 'other', required: false, type: 'string' }] } }, { action: 'set-current-schema', 'schema-id': -1 }),
      /cannot find source column 1/,
    );
  });
});

describe('snapshots and refs (v2)', () => {
  const S1 = 9007199254740993n; // 2^53 + 1: would round as a JS number
  const commit = (base: TableMetadata, s: Snapshot) =>
    apply(base, { action: 'add-snapshot', snapshot: s }, { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': s['snapshot-id'] });

  it('add-snapshot + main ref: sequence number, current snapshot, snapshot log', () => {
    const next = commit(v2Empty(), snapshot(S1, { 'sequence-number': 1n }));
    expect(next['last-sequence-number']).toBe(1n);
    expect(currentSnapshotId(next)).toBe(S1);
    expect(next.refs).toEqual({ main: { 'snapshot-id': S1, type: 'branch' } });
    expect(next['snapshot-log']).toEqual([{ 'timestamp-ms': BigInt(NOW - 1000), 'snapshot-id': S1 }]);
    expect(serializeTableMetadata(next)).toContain('"current-snapshot-id":9007199254740993');
  });

  it('a snapshot on another branch does not move main or the log', () => {
    const next = apply(v2(), { action: 'add-snapshot', snapshot: snapshot(5n, { 'sequence-number': 4n, 'parent-snapshot-id': 4611686018427387905n }) }, { action: 'set-snapshot-ref', 'ref-name': 'audit', type: 'branch', 'snapshot-id': 5n });
    expect(currentSnapshotId(next)).toBe(BIG);
    expect(next['snapshot-log']).toHaveLength(2);
    expect(next.refs!.audit).toEqual({ 'snapshot-id': 5n, type: 'branch' });
  });

  it('refuses stale sequence numbers as retryable, and malformed snapshots as not', () => {
    expectInvalid(() => apply(v2(), { action: 'add-snapshot', snapshot: snapshot(5n, { 'sequence-number': 3n, 'parent-snapshot-id': BIG }) }), /sequence number 3 older than last sequence number 3/, true);
    expectInvalid(() => apply(v2(), { action: 'add-snapshot', snapshot: snapshot(5n) }), /no sequence-number, required in v2/);
    expectInvalid(() => apply(v2(), { action: 'add-snapshot', snapshot: snapshot(5n, { 'sequence-number': 4n, 'manifest-list': undefined }) }), /no manifest-list/);
    expectInvalid(() => apply(v2(), { action: 'add-snapshot', snapshot: snapshot(BIG, { 'sequence-number': 4n }) }), /Snapshot already exists for id: 9223372036854775807/);
    expectInvalid(() => apply(v2(), { action: 'add-snapshot', snapshot: snapshot(5n, { 'sequence-number': 4n, 'parent-snapshot-id': 5n }) }), /own parent/);
  });

  it('refuses refs to unknown snapshots, main as a tag, retention on tags', () => {
    expectInvalid(() => apply(v2(), { action: 'set-snapshot-ref', 'ref-name': 'b', type: 'branch', 'snapshot-id': 77n }), /Cannot set b to unknown snapshot: 77/);
    expectInvalid(() => apply(v2(), { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'tag', 'snapshot-id': BIG }), /must be a branch/);
    expectInvalid(() => apply(v2(), { action: 'set-snapshot-ref', 'ref-name': 't', type: 'tag', 'snapshot-id': BIG, 'min-snapshots-to-keep': 1 }), /Tags do not support setting minSnapshotsToKeep/);
    expectInvalid(() => apply(v2(), { action: 'set-snapshot-ref', 'ref-name': 'b', type: 'branch', 'snapshot-id': BIG, 'max-ref-age-ms': 0n }), /Max reference age must be greater than 0/);
  });

  it('rollback of main logs the commit time; an identical ref is a no-op', () => {
    const base = v2();
    expect(apply(base, { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': BIG })).toBe(base);
    const rolled = apply(base, { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 4611686018427387905n });
    expect(currentSnapshotId(rolled)).toBe(4611686018427387905n);
    expect(rolled['snapshot-log']!.at(-1)).toEqual({ 'timestamp-ms': BigInt(NOW), 'snapshot-id': 4611686018427387905n });
  });

  it('refuses a snapshot timestamp far behind the log, or far ahead of the commit time', () => {
    expectInvalid(() => commit(v2(), snapshot(5n, { 'sequence-number': 4n, 'timestamp-ms': 1717100002000n - 120_000n })), /before last snapshot log entry/);
    expectInvalid(() => commit(v2(), snapshot(5n, { 'sequence-number': 4n, 'timestamp-ms': BigInt(NOW + 120_000) })), /Invalid update timestamp/);
  });

  it('intermediate snapshots of one transaction leave the snapshot log', () => {
    const next = apply(
      v2Empty(),
      { action: 'add-snapshot', snapshot: snapshot(1n, { 'sequence-number': 1n }) },
      { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 1n },
      { action: 'add-snapshot', snapshot: snapshot(2n, { 'sequence-number': 2n, 'parent-snapshot-id': 1n }) },
      { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 2n },
    );
    expect(next['snapshot-log']!.map((e) => e['snapshot-id'])).toEqual([2n]);
    expect(next.snapshots!.map((s) => s['snapshot-id'])).toEqual([1n, 2n]);
  });

  it('remove-snapshots drops their statistics, dangling refs and older log history', () => {
    const next = apply(v2(), { action: 'remove-snapshots', 'snapshot-ids': [4611686018427387905n, 123n] });
    expect(next.snapshots!.map((s) => s['snapshot-id'])).toEqual([BIG]);
    expect(Object.keys(next.refs!)).toEqual(['main']);
    expect(next['snapshot-log']).toEqual([{ 'timestamp-ms': 1717100002000n, 'snapshot-id': BIG }]);
    expect(next.statistics).toHaveLength(1);

    const all = apply(v2(), { action: 'remove-snapshots', 'snapshot-ids': [BIG, 4611686018427387905n] });
    expect(all.snapshots).toEqual([]);
    expect(all.refs).toEqual({});
    expect(all['current-snapshot-id']).toBe(-1n);
    expect(all.statistics).toEqual([]);
    expect(all['partition-statistics']).toEqual([]);
    expect(all['snapshot-log']).toEqual([]);
    const base = v2();
    expect(apply(base, { action: 'remove-snapshots', 'snapshot-ids': [1n] })).toBe(base); // unknown ids: no-op
  });

  it('remove-snapshot-ref: removing main clears the current snapshot; unknown refs are a no-op', () => {
    const next = apply(v2(), { action: 'remove-snapshot-ref', 'ref-name': 'main' });
    expect(currentSnapshot(next)).toBeUndefined();
    expect(next['current-snapshot-id']).toBe(-1n);
    expect(Object.keys(next.refs!)).toEqual(['audit', 'v1.0']);
    const base = v2();
    expect(apply(base, { action: 'remove-snapshot-ref', 'ref-name': 'nope' })).toBe(base);
  });
});

describe('v1 snapshots', () => {
  it('need no sequence number and do not write one', () => {
    const v1 = parseTableMetadata(V1_JAVA);
    const next = apply(v1, { action: 'add-snapshot', snapshot: snapshot(3n, { 'parent-snapshot-id': 7723847581212738001n }) }, { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 3n });
    expect(next['last-sequence-number']).toBeUndefined();
    expect(currentSnapshotId(next)).toBe(3n);
    expect(next.schema).toEqual(next.schemas![0]);
    expect(next['partition-spec']).toEqual(next['partition-specs']![0].fields);
  });

  it('a legacy v1 file comes out with the modern lists as well', () => {
    const next = apply(parseTableMetadata(V1_LEGACY), { action: 'set-properties', updates: { k: 'v' } });
    expect(next.schemas).toHaveLength(1);
    expect(next['partition-specs']).toEqual([{ 'spec-id': 0, fields: [{ name: 'a', transform: 'identity', 'source-id': 1, 'field-id': 1000 }] }]);
    expect(next['last-partition-id']).toBe(1000);
    expect(next['sort-orders']).toEqual([{ 'order-id': 0, fields: [] }]);
    expect(next['current-snapshot-id']).toBe(-1n);
  });
});

describe('v3 row lineage', () => {
  const v3Snapshot = (id: bigint, seq: bigint, extra: Partial<Snapshot> = {}) =>
    snapshot(id, { 'sequence-number': seq, 'parent-snapshot-id': 8070450532247928833n, ...extra });

  it('assigns first-row-id from next-row-id when the writer left it open, then advances by added-rows', () => {
    const next = apply(v3(), { action: 'add-snapshot', snapshot: v3Snapshot(11n, 3n, { 'added-rows': 25n }) });
    expect(next.snapshots!.at(-1)!['first-row-id']).toBe(150n);
    expect(next['next-row-id']).toBe(175n);
    const again = apply(next, { action: 'add-snapshot', snapshot: v3Snapshot(12n, 4n, { 'added-rows': 0n }) });
    expect(again.snapshots!.at(-1)!['first-row-id']).toBe(175n);
    expect(again['next-row-id']).toBe(175n);
  });

  it('keeps a writer-assigned first-row-id and advances past its range, also on branches', () => {
    const next = apply(
      v3(),
      { action: 'add-snapshot', snapshot: v3Snapshot(11n, 3n, { 'first-row-id': 160n, 'added-rows': 10n }) },
      { action: 'set-snapshot-ref', 'ref-name': 'dev', type: 'branch', 'snapshot-id': 11n },
    );
    expect(next.snapshots!.at(-1)!['first-row-id']).toBe(160n);
    expect(next['next-row-id']).toBe(170n);
    expect(currentSnapshotId(next)).toBe(8070450532247928833n);
  });

  it('refuses a first-row-id behind next-row-id (retryable) and a missing added-rows', () => {
    expectInvalid(() => apply(v3(), { action: 'add-snapshot', snapshot: v3Snapshot(11n, 3n, { 'first-row-id': 149n, 'added-rows': 1n }) }), /first-row-id is behind table next-row-id: 149 < 150/, true);
    expectInvalid(() => apply(v3(), { action: 'add-snapshot', snapshot: v3Snapshot(11n, 3n) }), /added-rows is required in v3/);
    expectInvalid(() => apply(v3(), { action: 'add-snapshot', snapshot: v3Snapshot(11n, 3n, { 'added-rows': -1n }) }), /added-rows is negative/);
  });

  it('row lineage starts at 0 after an upgrade from v2', () => {
    const three = apply(v2(), { action: 'upgrade-format-version', 'format-version': 3 }, { action: 'add-snapshot', snapshot: snapshot(5n, { 'sequence-number': 4n, 'added-rows': 40n }) });
    expect(three.snapshots!.at(-1)!['first-row-id']).toBe(0n);
    expect(three['next-row-id']).toBe(40n);
    const json = parseJson(serializeTableMetadata(three)) as Record<string, unknown>;
    expect(json['next-row-id']).toBe(40);
  });

  it('v3 leaves current-snapshot-id out (not -1, not null) when there is no current snapshot', () => {
    const next = apply(v3(), { action: 'remove-snapshot-ref', 'ref-name': 'main' });
    expect(next['current-snapshot-id'] ?? null).toBeNull();
    expect(Object.prototype.hasOwnProperty.call(JSON.parse(serializeTableMetadata(next)), 'current-snapshot-id')).toBe(false);
  });
});

describe('location, properties, statistics, encryption keys', () => {
  it('set-location strips trailing slashes; empty is refused', () => {
    expect(apply(v2(), { action: 'set-location', location: 's3://new/place//' }).location).toBe('s3://new/place');
    expectInvalid(() => apply(v2(), { action: 'set-location', location: '/' }), /location/);
  });

  it('set-properties merges, remove-properties removes; reserved properties are refused', () => {
    const next = apply(v2(), { action: 'set-properties', updates: { a: '1', 'commit.retry.num-retries': '9' } }, { action: 'remove-properties', removals: ['write.metadata.previous-versions-max', 'missing'] });
    expect(next.properties).toEqual({ 'commit.retry.num-retries': '9', a: '1' });
    expectInvalid(() => apply(v2(), { action: 'set-properties', updates: { 'format-version': '3' } }), /reserved properties, but got: format-version/);
  });

  it('set-statistics replaces the file for a snapshot; remove-statistics removes it', () => {
    const stats = { 'snapshot-id': BIG, 'statistics-path': 's3://b/new.puffin', 'file-size-in-bytes': 10n, 'file-footer-size-in-bytes': 5n, 'blob-metadata': [] };
    const next = apply(v2(), { action: 'set-statistics', statistics: stats });
    expect(next.statistics).toEqual([stats]);
    expect(apply(next, { action: 'remove-statistics', 'snapshot-id': BIG }).statistics).toEqual([]);
    expectInvalid(() => apply(v2(), { action: 'set-statistics', 'snapshot-id': 1n, statistics: stats }), /does not match/);
  });

  it('set/remove-partition-statistics', () => {
    const file = { 'snapshot-id': 4611686018427387905n, 'statistics-path': 's3://b/p.parquet', 'file-size-in-bytes': 3n };
    const next = apply(v2(), { action: 'set-partition-statistics', 'partition-statistics': file });
    expect(next['partition-statistics']).toHaveLength(2);
    const removed = apply(next, { action: 'remove-partition-statistics', 'snapshot-id': BIG });
    expect(removed['partition-statistics']).toEqual([file]);
  });

  it('add/remove-encryption-key', () => {
    const next = apply(v3(), { action: 'add-encryption-key', 'encryption-key': { 'key-id': 'k2', 'encrypted-key-metadata': 'AAAA' } });
    expect(next['encryption-keys']!.map((k) => k['key-id'])).toEqual(['k1', 'k2']);
    expect(apply(next, { action: 'add-encryption-key', 'encryption-key': { 'key-id': 'k2', 'encrypted-key-metadata': 'BBBB' } })).toBe(next);
    const removed = apply(next, { action: 'remove-encryption-key', 'key-id': 'k1' }, { action: 'remove-encryption-key', 'key-id': 'k2' });
    expect(removed['encryption-keys']).toBeUndefined(); // not written when empty
  });
});

describe('create through updates (REST create transaction)', () => {
  const createUpdates = (version: number): TableUpdate[] => [
    { action: 'assign-uuid', uuid: '11111111-2222-4333-8444-555555555555' },
    { action: 'upgrade-format-version', 'format-version': version },
    { action: 'add-schema', schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }] } },
    { action: 'set-current-schema', 'schema-id': -1 },
    { action: 'add-spec', spec: { fields: [{ 'source-id': 1, name: 'id_b', transform: 'bucket[4]' }] } },
    { action: 'set-default-spec', 'spec-id': -1 },
    { action: 'add-sort-order', 'sort-order': { 'order-id': 0, fields: [] } },
    { action: 'set-default-sort-order', 'sort-order-id': -1 },
    { action: 'set-location', location: 's3://b/t' },
  ];

  it.each([1, 2, 3])('builds a v%s table from nothing', (version) => {
    const meta = applyUpdates(null, createUpdates(version), at);
    expect(meta['format-version']).toBe(version);
    expect(meta['partition-specs']).toEqual([{ 'spec-id': 0, fields: [{ 'source-id': 1, 'field-id': 1000, name: 'id_b', transform: 'bucket[4]' }] }]);
    expect(meta['last-partition-id']).toBe(1000);
    expect(parseTableMetadata(serializeTableMetadata(meta))).toEqual(meta);
  });

  it('refuses a create without schema or location', () => {
    expectInvalid(() => applyUpdates(null, createUpdates(2).filter((u) => u.action !== 'set-location'), at), /location is required/);
    expectInvalid(() => applyUpdates(null, [{ action: 'set-location', location: 's3://b/t' }], at), /no current schema/);
  });

  it('matches newTableMetadata for the same input', () => {
    const viaHelper = newTableMetadata({
      location: 's3://b/t', formatVersion: 2, tableUuid: '11111111-2222-4333-8444-555555555555', nowMs: NOW,
      schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }] },
      partitionSpec: { fields: [{ 'source-id': 1, name: 'id_b', transform: 'bucket[4]' }] },
    });
    expect(viaHelper).toEqual(applyUpdates(null, createUpdates(2), at));
  });
});

describe('withMetadataLog', () => {
  it('appends the previous file with its timestamp and honours previous-versions-max', () => {
    const prev = v2(); // previous-versions-max = 2, already 2 entries
    const next = apply(prev, { action: 'set-properties', updates: { a: '1' } });
    const logged = withMetadataLog(prev, 's3://bucket/warehouse/db/orders/metadata/00002-c.metadata.json', next);
    expect(logged['metadata-log']).toEqual([
      { 'timestamp-ms': 1717100001000n, 'metadata-file': 's3://bucket/warehouse/db/orders/metadata/00001-b.metadata.json' },
      { 'timestamp-ms': 1717100003000n, 'metadata-file': 's3://bucket/warehouse/db/orders/metadata/00002-c.metadata.json' },
    ]);
    expect(withMetadataLog(prev, 'x', next, 10)['metadata-log']).toHaveLength(3);
    expect(withMetadataLog(prev, 'x', next, 0)['metadata-log']).toEqual([{ 'timestamp-ms': 1717100003000n, 'metadata-file': 'x' }]);
  });

  it('defaults to 100 entries', () => {
    const base = v2Empty();
    const prev: TableMetadata = { ...base, 'metadata-log': Array.from({ length: 100 }, (_, i) => ({ 'timestamp-ms': BigInt(i), 'metadata-file': `f${i}` })) };
    const logged = withMetadataLog(prev, 'last', prev);
    expect(logged['metadata-log']).toHaveLength(100);
    expect(logged['metadata-log']![0]['metadata-file']).toBe('f1');
    expect(logged['metadata-log']!.at(-1)!['metadata-file']).toBe('last');
  });
});
