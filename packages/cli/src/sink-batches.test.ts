import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ApiError, CliError, EXIT_USAGE, NetworkError } from './errors';
import {
  arrayElements, batchId, csvCellJson, cutBatches, DEFAULT_BATCH_BYTES, DEFAULT_BATCH_ROWS, eachInParallel, fileHash, formatOf,
  readRows, retryable, retryDelayMs, SEND_LIMIT_BYTES, SEND_RETRIES, withRetries, type FileRow, type RowFormat,
} from './sink-batches';

const ROUTE_BATCH_ID = /^[A-Za-z0-9._:-]{1,128}$/;

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const rowsOf = (text: string, format: RowFormat) => all(readRows(Readable.from([text]), format, 'rows.x'));

async function usageFailure(p: Promise<unknown>): Promise<CliError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(CliError);
  expect((err as CliError).exitCode).toBe(EXIT_USAGE);
  return err as CliError;
}

async function* rowsFrom(jsons: string[]): AsyncGenerator<FileRow> {
  let at = 0;
  for (const json of jsons) yield { json, at: ++at };
}

describe('formatOf', () => {
  test('from the extension, unless given', () => {
    expect(formatOf('a/b.ndjson')).toBe('ndjson');
    expect(formatOf('b.JSONL')).toBe('ndjson');
    expect(formatOf('b.json')).toBe('json');
    expect(formatOf('b.csv')).toBe('csv');
    expect(formatOf('b.txt', 'csv')).toBe('csv');
  });
  test('an unknown extension is a usage error asking for --format', () => {
    try {
      formatOf('rows.txt');
      throw new Error('no error');
    } catch (err) {
      expect(err).toBeInstanceOf(CliError);
      expect((err as CliError).exitCode).toBe(EXIT_USAGE);
      expect((err as CliError).hint).toMatch(/--format/);
    }
  });
});

describe('reading rows', () => {
  test('NDJSON: blank lines skipped, CRLF and a BOM read, each row as written with its line', async () => {
    const rows = await rowsOf('\uFEFF{"id":1}\r\n\r\n  {"id": 9007199254740993, "msg":"a b"}  \n\n{"id":3}', 'ndjson');
    expect(rows).toEqual([
      { json: '{"id":1}', at: 1 },
      { json: '{"id": 9007199254740993, "msg":"a b"}', at: 3 },
      { json: '{"id":3}', at: 5 },
    ]);
  });

  test('NDJSON: a line that is not JSON is a usage error naming its line', async () => {
    const err = await usageFailure(rowsOf('{"id":1}\n\n{"id":2\n{"id":4}\n', 'ndjson'));
    expect(err.message).toMatch(/^rows\.x: line 3 is not JSON/);
  });

  test('JSON: the elements of an array, each as written', async () => {
    const text = '[ {"id":1,"tags":["a,b","]"]}, {"q":"say \\"hi\\", {x}"},\n 9007199254740993, [1,2], null ]';
    const rows = await rowsOf(text, 'json');
    expect(rows.map((r) => r.json)).toEqual(['{"id":1,"tags":["a,b","]"]}', '{"q":"say \\"hi\\", {x}"}', '9007199254740993', '[1,2]', 'null']);
    expect(rows.map((r) => r.at)).toEqual([1, 2, 3, 4, 5]);
    for (const r of rows) expect(() => JSON.parse(r.json)).not.toThrow();
    expect([...arrayElements('[]')]).toEqual([]);
    expect([...arrayElements(' [ {} ] ')]).toEqual(['{}']);
  });

  test('JSON: not JSON, or not an array, is a usage error', async () => {
    expect((await usageFailure(rowsOf('[{"id":1},', 'json'))).message).toMatch(/rows\.x is not JSON/);
    expect((await usageFailure(rowsOf('{"id":1}', 'json'))).message).toMatch(/holds a JSON object, not an array/);
  });

  test('CSV: the header names the columns; numbers as numbers, empty cells null, quoted cells text', async () => {
    const text = 'id,msg,score,zip,big\n1,hello,2.5,007,9007199254740993\n2,,-1e3,"12",\n\n3,"a, ""b""",,"",x\n';
    const rows = await rowsOf(text, 'csv');
    expect(rows.map((r) => r.json)).toEqual([
      '{"id":1,"msg":"hello","score":2.5,"zip":"007","big":9007199254740993}',
      '{"id":2,"msg":null,"score":-1e3,"zip":"12","big":null}',
      '{"id":3,"msg":"a, \\"b\\"","score":null,"zip":"","big":"x"}',
    ]);
    expect(rows.map((r) => JSON.parse(r.json).id)).toEqual([1, 2, 3]);
    expect(rows.map((r) => r.at)).toEqual([2, 3, 5]);
    expect((await rowsOf('\uFEFFa,b\r\n1,x\r\n', 'csv')).map((r) => r.json)).toEqual(['{"a":1,"b":"x"}']);
  });

  test('CSV: a row with the wrong number of cells is a usage error', async () => {
    const err = await usageFailure(rowsOf('a,b\n1,2\n3\n', 'csv'));
    expect(err.message).toMatch(/^rows\.x: /);
  });

  test('csvCellJson', () => {
    expect(csvCellJson('', false)).toBe('null');
    expect(csvCellJson('', true)).toBe('""');
    expect(csvCellJson('42', false)).toBe('42');
    expect(csvCellJson('42', true)).toBe('"42"');
    expect(csvCellJson('0.5', false)).toBe('0.5');
    expect(csvCellJson('.5', false)).toBe('".5"');
    expect(csvCellJson('1,000', false)).toBe('"1,000"');
    expect(csvCellJson('true', false)).toBe('"true"');
  });
});

describe('cutting batches', () => {
  const caps = { rows: 3, bytes: 64 };

  test('at most the row cap and the byte cap; the body is the rows as a JSON array, its bytes counted exactly', async () => {
    const jsons = Array.from({ length: 10 }, (_, i) => JSON.stringify({ i, s: 'é'.repeat(i) }));
    const batches = await all(cutBatches(rowsFrom(jsons), caps, 'ndjson'));
    expect(batches.flatMap((b) => JSON.parse(b.body))).toEqual(jsons.map((j) => JSON.parse(j)));
    expect(batches.map((b) => b.index)).toEqual(batches.map((_, i) => i));
    for (const b of batches) {
      expect(b.rows).toBeLessThanOrEqual(caps.rows);
      expect(b.bytes).toBe(Buffer.byteLength(b.body));
      expect(b.bytes).toBeLessThanOrEqual(caps.bytes);
      expect(b.at).toHaveLength(b.rows);
    }
    expect(batches.flatMap((b) => b.at)).toEqual(jsons.map((_, i) => i + 1));
  });

  test('rows only: full batches of the row cap', async () => {
    const jsons = Array.from({ length: 7 }, (_, i) => `{"i":${i}}`);
    const batches = await all(cutBatches(rowsFrom(jsons), { rows: 3, bytes: DEFAULT_BATCH_BYTES }, 'ndjson'));
    expect(batches.map((b) => b.rows)).toEqual([3, 3, 1]);
  });

  test('a row larger than the byte cap is a batch of its own', async () => {
    const big = JSON.stringify({ s: 'x'.repeat(100) });
    const batches = await all(cutBatches(rowsFrom(['{"a":1}', big, '{"a":2}']), caps, 'ndjson'));
    expect(batches.map((b) => b.body)).toEqual(['[{"a":1}]', `[${big}]`, '[{"a":2}]']);
  });

  test('a row the route could never take is a usage error naming it, before its batch goes', async () => {
    const huge = JSON.stringify({ s: 'x'.repeat(SEND_LIMIT_BYTES) });
    const err = await usageFailure(all(cutBatches(rowsFrom(['{"a":1}', huge]), caps, 'json')));
    expect(err.message).toMatch(/^element 2 is 16\.\d MB of JSON: a batch is at most 16 MiB/);
  });

  test('nothing in, nothing out', async () => {
    expect(await all(cutBatches(rowsFrom([]), caps, 'csv'))).toEqual([]);
  });
});

describe('batch ids', () => {
  let dir: string;
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'floe-batches-')); });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the same content cut the same way makes the same ids, in the route charset; other caps or content make others', async () => {
    const content = Array.from({ length: 50 }, (_, i) => `{"i":${i}}`).join('\n');
    writeFileSync(join(dir, 'a.ndjson'), content);
    writeFileSync(join(dir, 'copy.ndjson'), content);
    writeFileSync(join(dir, 'other.ndjson'), `${content}\n{"i":50}`);
    const a = await fileHash(join(dir, 'a.ndjson'));
    expect(a).toEqual(await fileHash(join(dir, 'copy.ndjson')));
    expect(a.bytes).toBe(Buffer.byteLength(content));
    const other = await fileHash(join(dir, 'other.ndjson'));

    const caps = { rows: DEFAULT_BATCH_ROWS, bytes: DEFAULT_BATCH_BYTES };
    const id = batchId({ fileHash: a.sha256, format: 'ndjson', caps }, 12);
    expect(id).toBe(`${a.sha256.slice(0, 16)}.ndjson.r5000.b8388608.12`);
    expect(id).toMatch(ROUTE_BATCH_ID);
    expect(batchId({ fileHash: a.sha256, format: 'ndjson', caps: { ...caps, rows: 100 } }, 12)).not.toBe(id);
    expect(batchId({ fileHash: other.sha256, format: 'ndjson', caps }, 12)).not.toBe(id);
    expect(batchId({ fileHash: a.sha256, format: 'ndjson', caps: { rows: 100_000, bytes: SEND_LIMIT_BYTES } }, 999_999)).toMatch(ROUTE_BATCH_ID);
  });
});

describe('sending', () => {
  const refused = (status: number, extra: Record<string, unknown> = {}) => new ApiError(status, { code: `c${status}`, message: 'm', ...extra }, 'http://x/v1/sinks/snk_1');

  test('retried: no answer, 429, 502, 503, 504; not: other refusals', () => {
    for (const s of [429, 502, 503, 504]) expect(retryable(refused(s))).toBe(true);
    expect(retryable(new NetworkError('http://x', 'ECONNRESET'))).toBe(true);
    for (const s of [400, 401, 403, 404, 409, 413, 500]) expect(retryable(refused(s))).toBe(false);
    expect(retryable(new Error('x'))).toBe(false);
  });

  test('back-off doubles to 16 s; a longer Retry-After from Floe wins', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(n, refused(502)))).toEqual([1000, 2000, 4000, 8000, 16_000, 16_000]);
    expect(retryDelayMs(1, refused(429, { retry_after_seconds: 30 }))).toBe(30_000);
  });

  test('withRetries tries a passing failure 1 + SEND_RETRIES times, another failure once', async () => {
    const waits: number[] = [];
    let calls = 0;
    const flaky = withRetries(async () => { calls += 1; throw refused(503); }, async (ms) => { waits.push(ms); });
    await expect(flaky).rejects.toMatchObject({ status: 503 });
    expect(calls).toBe(1 + SEND_RETRIES);
    expect(waits).toHaveLength(SEND_RETRIES);

    calls = 0;
    await expect(withRetries(async () => { calls += 1; throw refused(409); }, async () => {})).rejects.toMatchObject({ status: 409 });
    expect(calls).toBe(1);

    calls = 0;
    expect(await withRetries(async () => { calls += 1; if (calls < 3) throw refused(502); return 'sent'; }, async () => {})).toBe('sent');
  });

  test('eachInParallel keeps at most the limit in flight and stops taking more after a failure', async () => {
    let inFlight = 0;
    let most = 0;
    const done: number[] = [];
    async function* items() { for (let i = 0; i < 20; i += 1) yield i; }
    await eachInParallel(items(), 3, async (i) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight -= 1;
      done.push(i);
    });
    expect(most).toBe(3);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));

    const started: number[] = [];
    const failing = eachInParallel(items(), 2, async (i) => {
      started.push(i);
      await new Promise((r) => setTimeout(r, 2));
      if (i === 3) throw new Error('refused');
    });
    await expect(failing).rejects.toThrow('refused');
    expect(Math.max(...started)).toBeLessThan(6);
  });
});
