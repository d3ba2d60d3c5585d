import { FileContent, type DataFile } from '../files/manifest';
import { DELETE_FILE_PATH_FIELD_ID, danglingAfterRewrite, deletesForGroup, referencedDataFile, type ScopedFile } from './delete-scope';

// Which deletes apply to a compaction group (spec "Scan Planning"), and which become useless with it.

const file = (path: string, content: number, over: Partial<DataFile> = {}): DataFile => ({
  content: content as DataFile['content'], file_path: path, file_format: 'parquet', partition: { day: 1 }, record_count: 1n, file_size_in_bytes: 10n, ...over,
});
const scoped = (f: DataFile, sequenceNumber: bigint, specId = 1): ScopedFile => ({ file: f, specId, sequenceNumber });
const utf8 = (s: string) => new TextEncoder().encode(s);

const group = [scoped(file('d1', 0), 3n), scoped(file('d2', 0), 5n)];

test('position deletes: by the file they name, else by partition and sequence number; the ones naming only a group file are removable', () => {
  const named = scoped(file('p-named', FileContent.POSITION_DELETES, { referenced_data_file: 'd1' }), 4n);
  const bounds = scoped(file('p-bounds', FileContent.POSITION_DELETES, { lower_bounds: new Map([[DELETE_FILE_PATH_FIELD_ID, utf8('d2')]]), upper_bounds: new Map([[DELETE_FILE_PATH_FIELD_ID, utf8('d2')]]) }), 6n);
  const older = scoped(file('p-older', FileContent.POSITION_DELETES, { referenced_data_file: 'd2' }), 4n); // d2 is newer (5): does not apply
  const spread = scoped(file('p-spread', FileContent.POSITION_DELETES), 4n); // names several files: applies, stays
  const otherPartition = scoped(file('p-other', FileContent.POSITION_DELETES, { partition: { day: 2 } }), 9n);
  const elsewhere = scoped(file('p-elsewhere', FileContent.POSITION_DELETES, { referenced_data_file: 'd9' }), 9n);
  const out = deletesForGroup(group, [named, bounds, older, spread, otherPartition, elsewhere], new Set());
  expect(out.position.map((d) => d.file.file_path)).toEqual(['p-named', 'p-bounds', 'p-spread']);
  expect(out.removable.map((d) => d.file.file_path)).toEqual(['p-named', 'p-bounds']);
  expect(out.vectors).toEqual([]);
});

test('deletion vectors apply to the file they name', () => {
  const dv = scoped(file('dv.puffin', FileContent.POSITION_DELETES, { file_format: 'puffin', referenced_data_file: 'd2', content_offset: 4n, content_size_in_bytes: 40n }), 7n);
  const out = deletesForGroup(group, [dv], new Set());
  expect(out.vectors.map((d) => d.file.file_path)).toEqual(['dv.puffin']);
  expect(out.removable.map((d) => d.file.file_path)).toEqual(['dv.puffin']);
});

test('equality deletes: strictly newer than some file of the group, same partition or global; not removable by the group alone', () => {
  const same = scoped(file('e-same', FileContent.EQUALITY_DELETES, { equality_ids: [1] }), 4n);
  const tooOld = scoped(file('e-old', FileContent.EQUALITY_DELETES, { equality_ids: [1] }), 3n);
  const global = scoped(file('e-global', FileContent.EQUALITY_DELETES, { equality_ids: [1], partition: {} }), 9n, 0);
  const otherPartition = scoped(file('e-other', FileContent.EQUALITY_DELETES, { equality_ids: [1], partition: { day: 2 } }), 9n);
  const out = deletesForGroup(group, [same, tooOld, global, otherPartition], new Set([0]));
  expect(out.equality.map((d) => d.file.file_path)).toEqual(['e-same', 'e-global']);
  expect(out.removable).toEqual([]);
});

test('a truncated file_path bound names no one file', () => {
  expect(referencedDataFile(file('p', 1, { lower_bounds: new Map([[DELETE_FILE_PATH_FIELD_ID, utf8('s3://b/t/data/0123')]]), upper_bounds: new Map([[DELETE_FILE_PATH_FIELD_ID, utf8('s3://b/t/data/0124')]]) }))).toBeNull();
});

test('after a rewrite, an applied delete goes when nothing that stays is in its reach', () => {
  const d1 = group[0];
  const d2 = group[1];
  const staysOld = scoped(file('d-old', 0), 2n); // same partition, older than every delete below
  const staysNew = scoped(file('d-new', 0), 8n); // same partition, newer than every delete below
  const otherDay = scoped(file('d-day2', 0, { partition: { day: 2 } }), 1n);
  const eq = scoped(file('e', FileContent.EQUALITY_DELETES, { equality_ids: [1] }), 6n);
  const eqGlobal = scoped(file('e-global', FileContent.EQUALITY_DELETES, { equality_ids: [1], partition: {} }), 6n, 0);
  const pos = scoped(file('p-spread', FileContent.POSITION_DELETES), 5n);
  const rewritten = new Set(['d1', 'd2']);
  const names = (xs: ScopedFile[]) => xs.map((d) => d.file.file_path);
  // Only newer files stay in the partition: nothing older than the deletes is left for them; the global one still reaches day 2.
  expect(names(danglingAfterRewrite([eq, eqGlobal, pos], [d1, d2, staysNew, otherDay], rewritten, new Set([0])))).toEqual(['e', 'p-spread']);
  // An older file stays in the partition: every delete still reaches it.
  expect(names(danglingAfterRewrite([eq, eqGlobal, pos], [d1, d2, staysOld], rewritten, new Set([0])))).toEqual([]);
  // Equality reaches strictly older files only; a position delete reaches its own sequence number too.
  const sameSeq = scoped(file('d-same', 0), 6n);
  expect(names(danglingAfterRewrite([eq], [d1, sameSeq], rewritten, new Set()))).toEqual(['e']);
  const atFive = scoped(file('d-five', 0), 5n);
  expect(names(danglingAfterRewrite([pos], [d1, atFive], rewritten, new Set()))).toEqual([]);
  // Everything rewritten: all go, each once.
  expect(names(danglingAfterRewrite([eq, eq, pos], [d1, d2], rewritten, new Set()))).toEqual(['e', 'p-spread']);
});
