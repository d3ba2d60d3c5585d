import { takeForRoll } from './batch-plan';

const batches = (...sizes: number[]) => sizes.map((bytes, i) => ({ batch_id: `b${i}`, bytes }));
const ids = (bs: Array<{ batch_id: string }>) => bs.map((b) => b.batch_id);

test('a roll takes the oldest batches up to its byte bound, and always at least one', () => {
  expect(ids(takeForRoll(batches(40, 40, 40, 40), 100))).toEqual(['b0', 'b1']);
  expect(ids(takeForRoll(batches(40, 60, 1), 100))).toEqual(['b0', 'b1']);
  expect(ids(takeForRoll(batches(150, 10), 100))).toEqual(['b0']);
  expect(takeForRoll([], 100)).toEqual([]);
});
