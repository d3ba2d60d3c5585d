// The roller's write against real DuckDB and real files: NDJSON files in,
// Parquet files near a target size out, with the caller's own rows appended
// (nested values too), metrics from the footer; what it refuses. (That its
// SQL reading equals packages/ingest's is services/roller-worker's
// engine-reading.test.ts.)
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Schema } from '@floe/iceberg';
import { UNREAD } from './ndjson-read.js';
import { openScratch, type Scratch } from './test-fixtures.js';

let s: Scratch;
beforeAll(async () => {
  s = await openScratch();
});
afterAll(() => s?.close());

const schema: Schema = { type: 'struct', 'schema-id': 0, fields: [
  { id: 1, name: 'id', required: true, type: 'long' },
  { id: 2, name: 'msg', required: false, type: 'string' },
  { id: 3, name: 'tags', required: false, type: { type: 'list', 'element-id': 4, 'element-required': false, element: 'string' } },
] };

function ndjson(name: string, lines: string[]): string {
  const path = join(s.engine.scratchDir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

test('files near the target size, every row once, the caller\'s rows among the read ones, metrics from each footer', async () => {
  // 40 files of 2,000 rows of incompressible text, about 4.4 MB of NDJSON; a 256 KiB target.
  const files = Array.from({ length: 40 }, (_, f) => ({
    localPath: ndjson(`big-${f}.ndjson`, Array.from({ length: 2000 }, (_, i) => JSON.stringify({ id: f * 2000 + i, msg: Math.random().toString(36).repeat(3) }))),
    stampMicros: 0n,
  }));
  const target = 256 * 1024;
  const out = await s.engine.loadNdjson({ schema }, async (load) => {
    expect(await load.addFiles(files)).toEqual([]);
    await load.appendRows({ id: [1_000_000n], msg: ['mine'], tags: [['a', null]] }, 1);
    expect(await load.count()).toBe(80_001);
    return load.writeParquet({ outputDir: join(s.engine.scratchDir, 'near'), prefix: 'part', targetFileSizeBytes: target, rowGroupSize: 4096 });
  });
  expect(out.length).toBeGreaterThanOrEqual(4);
  expect(out.map((f) => f.localPath)).toEqual(out.map((_, n) => join(s.engine.scratchDir, 'near', `part-${n}.parquet`)));
  for (const f of out.slice(0, -1)) {
    expect(Number(f.stats.file_size_in_bytes)).toBeGreaterThanOrEqual(target);
    expect(Number(f.stats.file_size_in_bytes)).toBeLessThan(1.5 * target);
  }
  expect(out.reduce((n, f) => n + f.stats.record_count, 0n)).toBe(80_001n);
  const rows = (await Promise.all(out.map((f) => s.engine.readRows(f.localPath)))).flat();
  expect(rows.filter((r) => r.id === 1_000_000n)).toEqual([{ id: 1_000_000n, msg: 'mine', tags: ['a', null] }]);
  // The footer's metrics: bounds of the id column over the files, no nulls.
  expect(out[0].stats.null_value_counts.get(1)).toBe(0n);
  expect(out[0].stats.lower_bounds.get(1)).toBeDefined();
});

test('a file holding a form SQL leaves is handed back with why; the others are read; a file the JSON reader refuses, with its error', async () => {
  const good = { localPath: ndjson('good.ndjson', ['{"id":1}', '{"id":2}']), stampMicros: 0n };
  const left = { localPath: ndjson('left.ndjson', ['{"id":3}', '{"id":"4.0"}']), stampMicros: 0n };
  const broken = { localPath: ndjson('broken.ndjson', ['{"id":5', '']), stampMicros: 0n };
  await s.engine.loadNdjson({ schema }, async (load) => {
    const got = await load.addFiles([good, left, broken]);
    expect(got.map((g) => g.index)).toEqual([1, 2]);
    expect(got[0].reason).toBe(UNREAD);
    expect(got[1].reason).not.toBe(UNREAD);
    expect(await load.count()).toBe(2); // the good file's rows only: a statement that fails leaves nothing
  });
});

test('a schema SQL cannot read here leaves every file to the caller; paths outside the scratch directory are refused', async () => {
  const named: Schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'filename', required: false, type: 'string' }] };
  const file = { localPath: ndjson('named.ndjson', ['{"filename":"a"}']), stampMicros: 0n };
  await s.engine.loadNdjson({ schema: named }, async (load) => {
    expect(load.unreadable).toMatch(/filename/);
    expect(await load.addFiles([file])).toEqual([{ index: 0, reason: load.unreadable }]);
  });
  await s.engine.loadNdjson({ schema }, async (load) => {
    await expect(load.addFiles([{ localPath: '/etc/hostname', stampMicros: 0n }])).rejects.toThrow(/outside the scratch directory/);
    await expect(load.writeParquet({ outputDir: '/tmp/elsewhere', prefix: 'p', targetFileSizeBytes: 1 << 20 })).rejects.toThrow(/outside the scratch directory/);
  });
});

test('the one-statement shortcut: files that read wholly in SQL become Parquet without the table; one that does not makes it write nothing', async () => {
  const good = [1, 2].map((f) => ({ localPath: ndjson(`short-${f}.ndjson`, [`{"id":${f}1,"msg":"a"}`, `{"id":${f}2,"tags":null}`]), stampMicros: 0n }));
  const left = { localPath: ndjson('short-left.ndjson', ['{"id":3,"tags":["x"]}']), stampMicros: 0n };
  await s.engine.loadNdjson({ schema }, async (load) => {
    const outputDir = join(s.engine.scratchDir, 'short');
    const out = await load.copyFiles(good, { outputDir, prefix: 'one', targetFileSizeBytes: 1 << 20 });
    expect(out).toHaveLength(1);
    expect(out![0].stats.record_count).toBe(4n);
    // Rows keep no order across files (the engine reads them on several threads), and a roll promises none.
    expect((await s.engine.readRows(out![0].localPath)).map((r) => r.id as bigint).sort()).toEqual([11n, 12n, 21n, 22n]);
    expect(await load.copyFiles([...good, left], { outputDir, prefix: 'two', targetFileSizeBytes: 1 << 20 })).toBeNull();
    expect(readdirSync(outputDir)).toEqual(['one-0.parquet']);
    expect(await load.count()).toBe(0);
  });
});
