// The transfers against stand-ins: Floe as a fetch answering the uploader and
// listing routes, the object store as a local HTTP server speaking just
// enough S3 (PutObject and multipart, with the refusals a fresh key meets).
// The whole path over the real stack is the CLI's end-to-end test.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FloeApi } from './api-client';
import {
  contentTypeOf, downloadToFile, isKeyNotYetKnown, partSizeFor, uploaderName, uploadThroughUploader, type LargeUpload,
} from './blob-transfer';
import { CliError, Hinted } from './errors';

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'floe-blobs-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('content types by extension, bytes otherwise', () => {
  expect(contentTypeOf('a/b/report.PDF')).toBe('application/pdf');
  expect(contentTypeOf('events.ndjson')).toBe('application/x-ndjson');
  expect(contentTypeOf('dump.parquet')).toBe('application/vnd.apache.parquet');
  expect(contentTypeOf('Makefile')).toBe('application/octet-stream');
});

test('parts of 8 MiB, larger past 10,000 of them', () => {
  expect(partSizeFor(50 * 1024 * 1024)).toBe(8 * 1024 * 1024);
  expect(partSizeFor(200 * 1024 ** 3)).toBe(Math.ceil((200 * 1024 ** 3) / 10_000));
});

test('uploader names and the refusals of a key not known yet', () => {
  expect(uploaderName(Buffer.from([0xde, 0xad, 0xbe, 0xef]))).toBe('floe-cli-deadbeef');
  expect(uploaderName()).toMatch(/^floe-cli-[0-9a-f]{8}$/);
  const named = (name: string) => Object.assign(new Error('x'), { name });
  expect(isKeyNotYetKnown(named('InvalidAccessKeyId'))).toBe(true);
  expect(isKeyNotYetKnown(named('SignatureDoesNotMatch'))).toBe(true);
  expect(isKeyNotYetKnown(named('AccessDenied'))).toBe(true);
  expect(isKeyNotYetKnown(named('NoSuchBucket'))).toBe(false);
  expect(isKeyNotYetKnown('AccessDenied')).toBe(false);
});

describe('downloadToFile', () => {
  const fetchOf = (res: () => Response) => (async () => res()) as unknown as typeof fetch;
  const partsLeft = () => readdirSync(dir).filter((f) => f.endsWith('.floe-part'));

  test('writes the whole file under its name, nothing else', async () => {
    const ticks: number[] = [];
    let total: number | null = -1;
    const dest = join(dir, 'whole.bin');
    const bytes = await downloadToFile({
      url: 'http://store.test/b/whole.bin', key: 'whole.bin', fetchImpl: fetchOf(() => new Response('hello world', { headers: { 'Content-Length': '11' } })),
      onStart: (t) => { total = t; }, onProgress: (n) => ticks.push(n),
    }, dest);
    expect(bytes).toBe(11);
    expect(total).toBe(11);
    expect(ticks.at(-1)).toBe(11);
    expect(readFileSync(dest, 'utf8')).toBe('hello world');
    expect(partsLeft()).toEqual([]);
  });

  test('a refusal names the store\'s code and leaves nothing', async () => {
    const dest = join(dir, 'missing.bin');
    const xml = '<?xml version="1.0"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>';
    const failing = downloadToFile({ url: 'http://store.test/b/missing.bin', key: 'missing.bin', fetchImpl: fetchOf(() => new Response(xml, { status: 404 })), onStart: () => {}, onProgress: () => {} }, dest);
    await expect(failing).rejects.toThrow(/HTTP 404 NoSuchKey: The specified key does not exist/);
    expect(readdirSync(dir)).not.toContain('missing.bin');
    expect(partsLeft()).toEqual([]);
  });

  test('a body cut short leaves nothing, not a half file', async () => {
    const dest = join(dir, 'cut.bin');
    const cut = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('half'));
        controller.error(new Error('socket hang up'));
      },
    });
    const failing = downloadToFile({ url: 'http://store.test/b/cut.bin', key: 'cut.bin', fetchImpl: fetchOf(() => new Response(cut)), onStart: () => {}, onProgress: () => {} }, dest);
    await expect(failing).rejects.toThrow(/socket hang up/);
    expect(readdirSync(dir)).not.toContain('cut.bin');
    expect(partsLeft()).toEqual([]);
  });
});

describe('uploadThroughUploader', () => {
  /** What the store stand-in does with the next PUT or POST: a refusal code, or store it. */
  let refusals: string[];
  let objects: Map<string, Buffer>;
  let multipart: Map<string, Map<number, Buffer>>;
  let seen: string[];
  let server: Server;
  let endpoint: string;

  const xmlError = (res: ServerResponse, status: number, code: string) => {
    res.writeHead(status, { 'Content-Type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message></Message></Error>`);
  };
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const url = new URL(req.url!, 'http://store');
      const body = await read(req);
      seen.push(`${req.method} ${url.pathname}${url.search.replace(/uploadId=[^&]+/, 'uploadId=U')}`);
      const refusal = refusals.shift();
      if (refusal) return xmlError(res, refusal === 'InvalidArgument' ? 400 : 403, refusal);
      const key = url.pathname.split('/').slice(2).join('/');
      if (req.method === 'POST' && url.searchParams.has('uploads')) {
        multipart.set('U', new Map());
        return res.writeHead(200).end(`<InitiateMultipartUploadResult><Bucket>b</Bucket><Key>${key}</Key><UploadId>U</UploadId></InitiateMultipartUploadResult>`);
      }
      if (req.method === 'PUT' && url.searchParams.has('partNumber')) {
        multipart.get('U')!.set(Number(url.searchParams.get('partNumber')), body);
        return res.writeHead(200, { ETag: `"${createHash('md5').update(body).digest('hex')}"` }).end();
      }
      if (req.method === 'POST' && url.searchParams.has('uploadId')) {
        const parts = [...multipart.get('U')!.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
        objects.set(key, Buffer.concat(parts));
        // As Ceph RGW answers it: the ETag element empty.
        return res.writeHead(200).end(`<CompleteMultipartUploadResult><Bucket>b</Bucket><Key>${key}</Key><ETag></ETag></CompleteMultipartUploadResult>`);
      }
      if (req.method === 'DELETE' && url.searchParams.has('uploadId')) return res.writeHead(204).end();
      if (req.method === 'PUT') {
        objects.set(key, body);
        return res.writeHead(200, { ETag: `"${createHash('md5').update(body).digest('hex')}"` }).end();
      }
      xmlError(res, 405, 'MethodNotAllowed');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** Floe: the uploader routes and the listing, recording what was asked. */
  let floeCalls: string[];
  let uploaderRefusal: { status: number; body: unknown } | null;
  const floe = () => new FloeApi('http://floe.test', 'al_live_k_s', {
    fetchImpl: (async (req: Request) => {
      const url = new URL(req.url);
      floeCalls.push(`${req.method} ${url.pathname}`);
      const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
      if (req.method === 'POST' && url.pathname.endsWith('/uploaders')) {
        if (uploaderRefusal) return json(uploaderRefusal.status, uploaderRefusal.body);
        const asked = await req.json() as { name: string; prefix: string; expires_at: string };
        expect(asked.name).toMatch(/^floe-cli-[0-9a-f]{8}$/);
        expect(Date.parse(asked.expires_at) - Date.now()).toBeGreaterThan(59 * 60 * 1000);
        return json(201, {
          uploader_id: 'upl_1', name: asked.name, prefix: asked.prefix, endpoint, bucket: 'b', region: 'us-east-1',
          access_key_id: 'AK', secret_access_key: 'SK', expires_at: asked.expires_at,
        });
      }
      if (req.method === 'DELETE') return json(200, { uploader_id: 'upl_1', revoked: true, already_revoked: false });
      if (url.pathname.endsWith('/blobs')) {
        const key = url.searchParams.get('prefix')!;
        return json(200, { objects: objects.has(key) ? [{ key, etag: 'listed-etag-2', size: objects.get(key)!.length }] : [], folders: [], next_token: null });
      }
      return json(404, { error: { code: 'not_found', message: req.url } });
    }) as typeof fetch,
  });

  beforeEach(() => {
    refusals = [];
    objects = new Map();
    multipart = new Map();
    seen = [];
    floeCalls = [];
    uploaderRefusal = null;
  });

  const upload = (file: string, size: number, more: Partial<LargeUpload> = {}) => uploadThroughUploader({
    api: floe(), catalog: 'lake', file, key: `in/${file.split('/').pop()}`, size, contentType: 'application/octet-stream',
    onProgress: () => {}, note: () => {}, signal: new AbortController().signal, sleep: async () => {}, ...more,
  });

  test('a fresh key refused at first: retried until the store takes it; the uploader is revoked', async () => {
    const file = join(dir, 'two-mb.bin');
    writeFileSync(file, Buffer.alloc(2_000_000, 7));
    refusals = ['InvalidAccessKeyId', 'SignatureDoesNotMatch'];
    const stored = await upload(file, 2_000_000);
    expect(stored).toMatchObject({ key: 'in/two-mb.bin', size: 2_000_000, bucket: 'b', via: 'uploader' });
    expect(stored.etag).toBe(createHash('md5').update(Buffer.alloc(2_000_000, 7)).digest('hex'));
    expect(objects.get('in/two-mb.bin')?.length).toBe(2_000_000);
    expect(seen.filter((s) => s.startsWith('PUT /b/in/two-mb.bin'))).toHaveLength(3);
    expect(floeCalls).toEqual(['POST /v1/warehouses/lake/uploaders', 'DELETE /v1/warehouses/lake/uploaders/upl_1']);
  });

  test('multipart, with the ETag the store left out taken from the listing', async () => {
    const file = join(dir, 'seventeen-mb.bin');
    const content = Buffer.alloc(17 * 1024 * 1024, 3);
    writeFileSync(file, content);
    const loaded: number[] = [];
    const stored = await upload(file, content.length, { onProgress: (n) => loaded.push(n) });
    expect(stored.etag).toBe('listed-etag-2');
    expect(objects.get('in/seventeen-mb.bin')?.equals(content)).toBe(true);
    expect(seen.filter((s) => s.includes('partNumber'))).toHaveLength(3);
    expect(loaded[0]).toBe(0);
    expect(loaded.at(-1)).toBe(content.length);
    expect(floeCalls.at(-1)).toBe('DELETE /v1/warehouses/lake/uploaders/upl_1');
  });

  test('a refusal that is not about the key fails at once, and the uploader is still revoked', async () => {
    const file = join(dir, 'refused.bin');
    writeFileSync(file, Buffer.alloc(1_500_000, 1));
    refusals = ['InvalidArgument'];
    await expect(upload(file, 1_500_000)).rejects.toThrow(CliError);
    expect(seen).toHaveLength(1);
    expect(floeCalls).toEqual(['POST /v1/warehouses/lake/uploaders', 'DELETE /v1/warehouses/lake/uploaders/upl_1']);
  });

  test('interrupted: stopped, and the uploader revoked', async () => {
    const file = join(dir, 'interrupted.bin');
    writeFileSync(file, Buffer.alloc(1_500_000, 2));
    const interrupt = new AbortController();
    interrupt.abort();
    await expect(upload(file, 1_500_000, { signal: interrupt.signal })).rejects.toMatchObject({ code: 'interrupted' });
    expect(floeCalls.at(-1)).toBe('DELETE /v1/warehouses/lake/uploaders/upl_1');
  });

  test('a key no uploader prefix can be: Floe\'s refusal, with why the key matters', async () => {
    uploaderRefusal = { status: 400, body: { error: { code: 'invalid_value', message: 'a prefix is letters, digits…', request_id: 'r', field: 'prefix' } } };
    const failing = upload(join(dir, 'interrupted.bin'), 1_500_000);
    await expect(failing).rejects.toBeInstanceOf(Hinted);
    await expect(failing).rejects.toMatchObject({ hint: expect.stringMatching(/uploader confined to its key/) });
    expect(floeCalls).toEqual(['POST /v1/warehouses/lake/uploaders']);
  });
});
