import type { DataFile } from '../files/manifest';
import { dataFile } from '../files/test-fixtures';
import { planBinPack, type BinPackEntry } from './bin-pack';

const MB = 1024 * 1024;
const TARGET = 128 * MB;

let n = 0;
function files(count: number, sizeMb: number, partition: DataFile['partition'] = {}, specId = 0): BinPackEntry[] {
  return Array.from({ length: count }, () => ({
    specId,
    dataFile: { ...dataFile(`s3://b/t/data/f${n++}.parquet`, 10n, partition), file_size_in_bytes: BigInt(Math.round(sizeMb * MB)) },
  }));
}
const plan = (entries: BinPackEntry[]) => planBinPack(entries, { targetFileBytes: TARGET, minInputFiles: 5, smallRatio: 0.75 });

describe('planBinPack', () => {
  test('4 small files: no group; 5: one, with the trigger in words', () => {
    const four = plan(files(4, 1));
    expect(four.groups).toEqual([]);
    expect(four.smallFiles).toBe(4);
    expect(four.partitions).toMatchObject([{ label: '(none)', files: 4, smallFiles: 4, eligible: false }]);

    const five = plan([...files(5, 1), ...files(2, 200)]);
    expect(five.smallFileBytes).toBe(96 * MB);
    expect(five.groups).toHaveLength(1);
    expect(five.groups[0]).toMatchObject({ specId: 0, partition: {}, inputBytes: 5 * MB, trigger: '5 files under 96 MB in partition (none)' });
    expect(five.groups[0].files).toHaveLength(5);
    expect(five.partitions[0]).toMatchObject({ files: 7, smallFiles: 5, eligible: true });
  });

  test('only small files count, and only partitions with enough of them', () => {
    const result = plan([
      ...files(6, 2, { category: 'a' }),
      ...files(1, 100, { category: 'a' }), // not small (>= 96 MB)
      ...files(4, 2, { category: 'b' }),
      ...files(5, 2, { category: 'a' }, 1), // same tuple, another spec
    ]);
    expect(result.groups.map((g) => [g.trigger, g.files.length])).toEqual([
      ['6 files under 96 MB in partition (category=a) of spec 0', 6],
      ['5 files under 96 MB in partition (category=a) of spec 1', 5],
    ]);
    expect(result.groups[0].files.every((f) => Number(f.file_size_in_bytes) === 2 * MB)).toBe(true);
    expect(result.partitions.map((p) => [p.label, p.smallFiles, p.eligible])).toEqual([
      ['(category=a) of spec 0', 6, true],
      ['(category=a) of spec 1', 5, true],
      ['(category=b) of spec 0', 4, false],
    ]);
    expect(result.smallFiles).toBe(15);
  });

  test('groups approach the target without passing it', () => {
    const result = plan([...files(10, 60), ...files(3, 5)]);
    expect(result.groups.map((g) => g.inputBytes / MB)).toEqual([125, 125, 125, 120, 120]);
    expect(result.groups.flatMap((g) => g.files)).toHaveLength(13);
  });

  test('small files that cannot share a group are not rewritten', () => {
    expect(plan(files(5, 90)).groups).toEqual([]);
  });

  test('delete files are not data to compact', () => {
    const deletes = files(5, 1).map((e) => ({ ...e, dataFile: { ...e.dataFile, content: 1 as const } }));
    expect(plan(deletes)).toMatchObject({ groups: [], smallFiles: 0 });
  });
});
