import { METADATA_RETENTION_PROPERTIES, newTableMetadata, type TableMetadata } from '@floe/iceberg';
import { COMPACT_TRIGGER_FILES, rulesCrossed, SNAPSHOT_SLACK } from './maintenance-rules';

// The rules the sweep and the roller judge a table by, in words.

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 27);

function table(snapshots: number, oldestDaysAgo = 0, properties: Record<string, string> = { ...METADATA_RETENTION_PROPERTIES }): TableMetadata {
  const m = newTableMetadata({ location: 's3://b/t', schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] }, properties });
  m.snapshots = Array.from({ length: snapshots }, (_, i) => ({
    'snapshot-id': BigInt(i + 1), 'sequence-number': BigInt(i + 1), 'timestamp-ms': BigInt(NOW - (i === 0 ? oldestDaysAgo * DAY : 0) + i),
    'manifest-list': `s3://b/t/metadata/snap-${i + 1}.avro`, summary: { operation: 'append' },
  }));
  return m;
}

const judge = (m: TableMetadata, lastOrphanPassMs: number | null = NOW) => rulesCrossed(m, { nowMs: NOW, lastOrphanPassMs, orphanPassEveryMs: DAY });

test('snapshots: past the cap and its slack, or one older than the retention and a day', () => {
  expect(judge(table(20 + SNAPSHOT_SLACK))).toEqual([]);
  expect(judge(table(21 + SNAPSHOT_SLACK))).toEqual([{ kind: 'expire_snapshots', detail: '26 snapshots, more than 20 kept' }]);
  expect(judge(table(3, 8))).toEqual([]);
  expect(judge(table(3, 9))).toEqual([{ kind: 'expire_snapshots', detail: 'the oldest of 3 snapshots is 9 days old, past the 7 days kept' }]);
  // One snapshot is never too old: it is the current one.
  expect(judge(table(1, 30))).toEqual([]);
});

test('snapshots at the sweep: past the cap itself, so a table at rest keeps at most 20', () => {
  const sweep = (m: TableMetadata) => rulesCrossed(m, { nowMs: NOW, lastOrphanPassMs: NOW, orphanPassEveryMs: DAY, lastLayoutPassMs: NOW + DAY });
  expect(sweep(table(20))).toEqual([]);
  expect(sweep(table(21))).toEqual([{ kind: 'expire_snapshots', detail: '21 snapshots, more than 20 kept' }]);
});

test('metadata: a table without the retention properties; orphans once a day', () => {
  expect(judge(table(1, 0, {}))).toEqual([{ kind: 'clean_metadata', detail: 'the table lacks write.metadata.delete-after-commit.enabled and write.metadata.previous-versions-max' }]);
  expect(judge(table(1), null)).toEqual([{ kind: 'remove_orphans', detail: 'no orphan pass yet' }]);
  expect(judge(table(1), NOW - 25 * 3_600_000)).toEqual([{ kind: 'remove_orphans', detail: 'the last orphan pass was 25 h ago' }]);
  expect(judge(table(1), NOW - 23 * 3_600_000)).toEqual([]);
});

test('layout: at a commit, many small files on average; at the sweep, any commit since the last pass', () => {
  const withFiles = (files: number, bytes: number, properties?: Record<string, string>) => {
    const m = table(1, 0, { ...METADATA_RETENTION_PROPERTIES, ...properties });
    m.snapshots![0].summary = { operation: 'append', 'total-data-files': String(files), 'total-files-size': String(bytes) };
    m['current-snapshot-id'] = 1n;
    return m;
  };
  const MB = 1024 * 1024;
  expect(judge(withFiles(COMPACT_TRIGGER_FILES - 1, 1000))).toEqual([]);
  expect(judge(withFiles(COMPACT_TRIGGER_FILES, COMPACT_TRIGGER_FILES * MB))).toEqual([
    { kind: 'compact', detail: '16 data files averaging 1 MB, under 96 MB' },
    { kind: 'rewrite_manifests', detail: '16 data files averaging 1 MB, under 96 MB' },
  ]);
  // Big files on average: nothing at a commit; the table's own target counts.
  expect(judge(withFiles(40, 40 * 100 * MB))).toEqual([]);
  expect(judge(withFiles(40, 40 * MB, { 'write.target-file-size-bytes': String(MB) }))).toEqual([]);
  // The sweep knows when the last pass was.
  const m = withFiles(2, 2 * 100 * MB);
  const sweep = (last: number | null) => rulesCrossed(m, { nowMs: NOW, lastOrphanPassMs: NOW, orphanPassEveryMs: DAY, lastLayoutPassMs: last });
  expect(sweep(null).map((h) => [h.kind, h.detail])).toEqual([['compact', 'no compaction pass yet'], ['rewrite_manifests', 'no compaction pass yet']]);
  expect(sweep(NOW - DAY).map((h) => h.detail)).toEqual(['commits since the last compaction pass', 'commits since the last compaction pass']);
  expect(sweep(NOW + 1)).toEqual([]);
});
