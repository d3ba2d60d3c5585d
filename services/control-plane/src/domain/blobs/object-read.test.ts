import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '@floe/storage';
import { storeCall } from './object-read';

// The object read's store calls against a store that misbehaves on purpose:
// a local HTTP server the real S3 client talks to, which never answers one
// key, refuses another and has no third. (The stack's RGW answers every
// call, so these refusals are checked here; tests/e2e/object-read.test.ts
// reads real objects.)

let server: Server;
let hung = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.includes('/hang')) { hung += 1; return; }
    const [status, code] = req.url?.includes('/denied') ? [403, 'AccessDenied'] : req.url?.includes('/broken') ? [500, 'InternalError'] : [404, 'NoSuchKey'];
    res.writeHead(status, { 'content-type': 'application/xml' }).end(`<?xml version="1.0"?><Error><Code>${code}</Code></Error>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const head = (key: string, timeoutMs: number) => {
  const s3 = s3Client({ endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, region: 'us-east-1' }, { accessKeyId: 'k', secretAccessKey: 's' });
  return storeCall('head object', (signal) => s3.send(new HeadObjectCommand({ Bucket: 'b', Key: key }), { abortSignal: signal }), timeoutMs);
};
const failure = (p: Promise<unknown>) => p.then(() => null, (err: { status: number; code: string }) => [err.status, err.code]);

test('a store that does not answer is 504 store_timeout at the timeout, its request aborted', async () => {
  // Long enough for the request to reach the server on a busy machine (a full run missed it at 300 ms).
  const started = Date.now();
  expect(await failure(head('hang', 1500))).toEqual([504, 'store_timeout']);
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(hung).toBe(1);
});

test('an absent object is 404 not_found; a refusal or a failing store 502 store_error', async () => {
  expect(await failure(head('gone', 3_000))).toEqual([404, 'not_found']);
  expect(await failure(head('denied', 3_000))).toEqual([502, 'store_error']);
  expect(await failure(head('broken', 3_000))).toEqual([502, 'store_error']);
});
