import { withMetadataLog } from '../metadata/updates';
import { liveFiles, planOrphans, type ListedFile } from './orphans';
import type { SnapshotFiles } from './reachability';
import { DAY, LOCATION, NOW, tableWith } from './test-fixtures';

const p = (name: string) => `${LOCATION}/${name}`;
const current = p('metadata/00002-b.metadata.json');
const previous = p('metadata/00001-a.metadata.json');

function table() {
  const meta = tableWith([{ id: 1n, ts: NOW - 10 * DAY, manifestList: p('metadata/snap-1.avro') }], { main: { 'snapshot-id': 1n } });
  return withMetadataLog(meta, previous, meta);
}

const collected: SnapshotFiles[] = [{
  snapshotId: 1n,
  manifestList: { path: p('metadata/snap-1.avro'), bytes: 10 },
  manifests: [{ path: p('metadata/m1.avro'), bytes: 10, content: 'data', specId: 0, dataFiles: [{ path: p('data/a.parquet'), bytes: 5 }], deleteFiles: [] }],
  statisticsFiles: [],
}];

const file = (path: string, ageDays: number, size = 100): ListedFile => ({ path, lastModified: new Date(NOW - ageDays * DAY), size });

describe('liveFiles', () => {
  test('snapshots’ files, the current and logged metadata files, the version hint', () => {
    expect([...liveFiles(table(), collected, { metadataLocation: current })].sort()).toEqual([
      p('data/a.parquet'),
      previous,
      current,
      p('metadata/m1.avro'),
      p('metadata/snap-1.avro'),
      p('metadata/version-hint.text'),
    ].sort());
  });

  test('refuses a collection missing a snapshot', () => {
    expect(() => liveFiles(table(), [], { metadataLocation: current })).toThrow(/snapshot 1 was not collected/);
  });
});

describe('planOrphans', () => {
  const live = liveFiles(table(), collected, { metadataLocation: current });
  const plan = (listed: ListedFile[]) => planOrphans({ listed, live, location: LOCATION, nowMs: NOW, olderThanMs: 3 * DAY });

  test('unreferenced files under the location older than 3 days', () => {
    const result = plan([
      file(p('data/a.parquet'), 30),
      file(current, 1),
      file(previous, 20),
      file(p('data/crashed-writer.parquet'), 4, 1000),
      file(p('metadata/00000-old.metadata.json'), 50, 7),
      file(p('data/in-flight.parquet'), 1),
      { path: p('data/edge.parquet'), lastModified: NOW - 3 * DAY, size: 1 }, // exactly at the cut: not older
      file(`${LOCATION}-other/data/x.parquet`, 30), // a sibling table sharing the prefix
    ]);
    expect(result.candidates.map((f) => f.path)).toEqual([p('data/crashed-writer.parquet'), p('metadata/00000-old.metadata.json')]);
    expect(result.bytes).toBe(1007);
    expect(result.tooNew).toBe(2);
    expect(result.mismatched).toEqual([]);
  });

  test('a live file listed under another scheme is reported, never a candidate', () => {
    const result = plan([file(p('data/a.parquet').replace('s3://', 's3a://'), 30)]);
    expect(result.candidates).toEqual([]);
    expect(result.mismatched).toEqual(['s3a://bucket/wh/db/t/data/a.parquet']);
  });

  test('refuses an empty live set', () => {
    expect(() => planOrphans({ listed: [], live: new Set(), location: LOCATION, nowMs: NOW, olderThanMs: 3 * DAY })).toThrow(/empty live set/);
  });
});
