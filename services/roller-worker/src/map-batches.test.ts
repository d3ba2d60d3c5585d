import { batchKey } from '@floe/ingest';
import { StorageError, type ObjectClient } from '@floe/storage';
import { mapBatches, readBatchObject } from './map-batches';

// A store holding these keys; any other key is gone (not_found), and `broken` fails as the store does when it is down.
const store = (objects: Record<string, string>, broken = new Set<string>()) => ({
  getBytes: async (_bucket: string, key: string) => {
    if (broken.has(key)) throw new StorageError('unavailable', 'get object', 'the object store is not answering');
    if (!(key in objects)) throw new StorageError('not_found', 'get object', 'not found', 404);
    return Buffer.from(objects[key], 'utf8');
  },
}) as unknown as ObjectClient;

const fields = [{ id: 1, name: 'n', required: true, type: 'long' }];

test('a batch object that is gone reads as null; any other failure is thrown', async () => {
  const objects = store({ [batchKey('snk_1', 'b1')]: '{"n":1}\n' }, new Set([batchKey('snk_1', 'b3')]));
  expect((await readBatchObject(objects, 'bkt', 'snk_1', 'b1'))?.toString('utf8')).toBe('{"n":1}\n');
  expect(await readBatchObject(objects, 'bkt', 'snk_1', 'b2')).toBeNull();
  await expect(readBatchObject(objects, 'bkt', 'snk_1', 'b3')).rejects.toMatchObject({ kind: 'unavailable' });
});

test('a reconcile maps a gone batch to nothing and the others in order', async () => {
  const objects = store({ [batchKey('snk_1', 'b1')]: '{"n":1}\n{"n":"x"}\n', [batchKey('snk_1', 'b3')]: '{"n":3}\n' });
  const ref = (batchId: string) => ({ batchId, receivedAtMicros: 0n });
  const mapped = await mapBatches(objects, 'bkt', 'snk_1', fields, [ref('b1'), ref('b2'), ref('b3')]);
  expect(mapped.count).toBe(2);
  expect(mapped.columns.n).toEqual([1n, 3n]);
  expect(mapped.rejects.map((r) => [r.batch_id, r.line])).toEqual([['b1', 2]]);
});
