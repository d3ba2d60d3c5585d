import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCache } from './file-cache';

// The worker's kept table files: a second statement that plans the same path
// links the kept copy instead of fetching; the least recently used go past the
// cap; a statement's link survives its copy's eviction; a failed fetch keeps
// nothing; several statements asking at once fetch once.

let root: string;
beforeEach(() => { root = mkdtempSync(join(tmpdir(), 'file-cache-')); });
afterEach(() => rmSync(root, { recursive: true, force: true }));

const writer = (bytes: number, calls: string[]) => async (path: string) => {
  calls.push(path);
  writeFileSync(path, Buffer.alloc(bytes, 7));
};

test('a kept file is linked, not fetched again; the least recently used goes past the cap; links outlive eviction', async () => {
  const cache = new FileCache(join(root, 'kept'), 250);
  const calls: string[] = [];
  expect(await cache.place('s3://b/t/a.parquet', join(root, 'a1'), writer(100, calls))).toEqual({ hit: false });
  expect(await cache.place('s3://b/t/a.parquet', join(root, 'a2'), writer(100, calls))).toEqual({ hit: true });
  expect(calls).toHaveLength(1);
  expect(readFileSync(join(root, 'a2')).length).toBe(100);
  await cache.place('s3://b/t/b.parquet', join(root, 'b1'), writer(100, calls));
  await cache.place('s3://b/t/a.parquet', join(root, 'a3'), writer(100, calls)); // a is now the most recent
  await cache.place('s3://b/t/c.parquet', join(root, 'c1'), writer(100, calls)); // 300 > 250: b goes
  expect(cache.size).toEqual({ bytes: 200, files: 2 });
  expect(await cache.place('s3://b/t/b.parquet', join(root, 'b2'), writer(100, calls))).toEqual({ hit: false });
  expect(existsSync(join(root, 'b1'))).toBe(true); // the first statement's link still reads
  expect(readFileSync(join(root, 'b1')).length).toBe(100);
});

test('several statements asking at once fetch once; a failed fetch keeps nothing; a cap of 0 keeps nothing', async () => {
  const cache = new FileCache(join(root, 'kept'), 1000);
  const calls: string[] = [];
  const slow = async (path: string) => { calls.push(path); await new Promise((r) => setTimeout(r, 20)); writeFileSync(path, 'x'); };
  const got = await Promise.all([1, 2, 3].map((i) => cache.place('s3://b/t/x', join(root, `x${i}`), slow)));
  expect(calls).toHaveLength(1);
  expect(got.map((g) => g.hit).sort()).toEqual([false, true, true]);
  await expect(cache.place('s3://b/t/bad', join(root, 'bad'), async () => { throw new Error('store said no'); })).rejects.toThrow('store said no');
  expect(cache.size.files).toBe(1);
  const none = new FileCache(join(root, 'none'), 0);
  const direct: string[] = [];
  await none.place('s3://b/t/y', join(root, 'y1'), writer(5, direct));
  await none.place('s3://b/t/y', join(root, 'y2'), writer(5, direct));
  expect(direct).toEqual([join(root, 'y1'), join(root, 'y2')]);
});
