import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { adminStorage } from '../support/store';
import { bearer, catalogWithCallers, expectError, gateway, type CatalogCallers } from './control-plane-helpers';
import { sql, stack } from './helpers';

// Spec: the blob bucket's files. GET /v1/warehouses/{id}/blobs and …/blobs/presign
// (read level), and Floe's POST …/blobs/upload?key= and DELETE …/blobs?key=|prefix=
// (write level). Presigned URLs are fetched with plain curl, as a person's
// script would. The 30 s URL is signed in the first test and checked refused in
// the last, so its wait runs behind the tests in between.

const run = promisify(execFile);

let c: CatalogCallers;
const base = () => `/v1/warehouses/${c.w.warehouse_id}/blobs`;
/** The 30 s presigned URL of the first test and when it was signed. */
let shortUrl: { url: string; signedAt: number } | null = null;

/** curl's status, headers and body for a URL (no credentials of ours: the URL carries its signature). */
async function curl(url: string): Promise<{ status: number; headers: string; body: string }> {
  const { stdout } = await run('/usr/bin/curl', ['-s', '-i', '--max-time', '20', url]);
  const split = stdout.indexOf('\r\n\r\n');
  const head = stdout.slice(0, split);
  return { status: Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head)?.[1]), headers: head, body: stdout.slice(split + 4) };
}

const upload = (key: string, body: string | Buffer, type = 'text/plain', as = c.admin.api_key) =>
  gateway().post(`${base()}/upload`).query({ key }).set(bearer(as)).set('Content-Type', type).send(body);

beforeAll(async () => {
  c = await catalogWithCallers('bl');
});

test('presign: a plain curl downloads; download=1 signs an attachment; expiry clamps; signed as the read-only identity on the public address', async () => {
  expect((await upload('docs/report one.txt', 'hello blobs')).status).toBe(201);
  const signed = await gateway().get(`${base()}/presign`).query({ key: 'docs/report one.txt', expires: '5' }).set(bearer(c.reader.api_key));
  expect(signed.status).toBe(200);
  shortUrl = { url: signed.body.url, signedAt: Date.now() };
  expect(signed.body).toMatchObject({ method: 'GET', key: 'docs/report one.txt', bucket: c.w.blob_bucket, expires_in: 30, download: false });
  expect(Date.parse(signed.body.expires_at) - Date.now()).toBeGreaterThan(25_000);
  const url = new URL(signed.body.url);
  expect(url.origin).toBe(new URL(stack().s3_url).origin);
  expect(url.pathname).toBe(`/${c.w.blob_bucket}/docs/report%20one.txt`);
  expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
  expect(url.searchParams.get('X-Amz-Expires')).toBe('30');
  const [ro] = await sql<{ k: string }>('SELECT storage_ro_access_key AS k FROM warehouses WHERE id = $1', [c.w.warehouse_id]);
  expect(url.searchParams.get('X-Amz-Credential')!.split('/')[0]).toBe(ro.k);
  const got = await curl(signed.body.url);
  expect(got).toMatchObject({ status: 200, body: 'hello blobs' });
  expect(got.headers).not.toMatch(/content-disposition/i);

  const attachment = await gateway().get(`${base()}/presign`).query({ key: 'docs/report one.txt', download: '1' }).set(bearer(c.reader.api_key));
  expect(attachment.body).toMatchObject({ expires_in: 900, download: true });
  expect((await curl(attachment.body.url)).headers).toMatch(/^content-disposition: attachment; filename="report one.txt"\r?$/im);
  // The disposition is part of the signature: changing it breaks the URL.
  expect((await curl(attachment.body.url.replace('attachment', 'inline'))).status).toBe(403);
  const long = await gateway().get(`${base()}/presign`).query({ key: 'docs/nothing-here', expires: '99999' }).set(bearer(c.reader.api_key));
  expect(long.body.expires_in).toBe(3600);
  expect((await curl(long.body.url)).status).toBe(404);
});

test('upload, list with folders, continuation tokens and urls, then delete by key and by prefix', async () => {
  for (const key of ['docs/a.txt', 'docs/b.txt', 'docs/sub/c.txt', 'top.bin']) {
    const res = await upload(key, `body of ${key}`, key.endsWith('.bin') ? 'application/octet-stream' : 'text/plain; charset=utf-8');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ key, bucket: c.w.blob_bucket, size: `body of ${key}`.length, etag: createHash('md5').update(`body of ${key}`).digest('hex') });
  }
  // Written as the warehouse's own identity, not the service's admin user.
  const owners = await adminStorage().s3.send(new ListObjectsV2Command({ Bucket: c.w.blob_bucket, Prefix: 'docs/a.txt', FetchOwner: true }));
  const [rw] = await sql<{ uid: string }>('SELECT storage_uid AS uid FROM warehouses WHERE id = $1', [c.w.warehouse_id]);
  expect(owners.Contents?.map((o) => o.Owner?.ID)).toEqual([rw.uid]);
  // Floe's own tree shows in listings.
  await adminStorage().s3.send(new PutObjectCommand({ Bucket: c.w.blob_bucket, Key: '_sink/s1/b1.ndjson', Body: '{}' }));

  const root = await gateway().get(base()).set(bearer(c.reader.api_key));
  expect(root.status).toBe(200);
  expect(root.body).toMatchObject({ bucket: c.w.blob_bucket, prefix: '', delimiter: '/', max_keys: 1000, truncated: false, next_token: null, count: 3 });
  expect(root.body.folders).toEqual([{ prefix: '_sink/', name: '_sink' }, { prefix: 'docs/', name: 'docs' }]);
  expect(root.body.objects).toEqual([{ key: 'top.bin', name: 'top.bin', size: 15, etag: expect.stringMatching(/^[0-9a-f]{32}$/), last_modified: expect.any(String) }]);

  // One entry a page, following next_token to the end.
  const seen: string[] = [];
  let token: string | null = null;
  let pages = 0;
  do {
    const page: { body: Record<string, any> } = await gateway().get(base()).query({ prefix: 'docs/', max_keys: '1', ...(token ? { token } : {}) }).set(bearer(c.reader.api_key));
    expect(page.body.count).toBe(1);
    seen.push(...page.body.objects.map((o: { name: string }) => o.name), ...page.body.folders.map((f: { prefix: string }) => f.prefix));
    token = page.body.next_token;
    expect(page.body.truncated).toBe(token !== null);
    pages += 1;
  } while (token && pages < 10);
  expect(seen).toEqual(['a.txt', 'b.txt', 'report one.txt', 'docs/sub/']);

  const flat = await gateway().get(base()).query({ prefix: 'docs/', delimiter: '', urls: '1', max_keys: '5000' }).set(bearer(c.reader.api_key));
  expect(flat.body).toMatchObject({ delimiter: '', max_keys: 1000, folders: [], urls_expire_in: 900 });
  expect(flat.body.objects.map((o: { key: string; name: string }) => [o.key, o.name])).toEqual([
    ['docs/a.txt', 'a.txt'], ['docs/b.txt', 'b.txt'], ['docs/report one.txt', 'report one.txt'], ['docs/sub/c.txt', 'c.txt'],
  ]);
  const deepest = flat.body.objects[3];
  expect(new URL(deepest.url).searchParams.get('X-Amz-Expires')).toBe('900');
  expect(await curl(deepest.url)).toMatchObject({ status: 200, body: 'body of docs/sub/c.txt' });

  const one = await gateway().delete(base()).query({ key: 'docs/a.txt' }).set(bearer(c.admin.api_key));
  expect(one.body).toMatchObject({ key: 'docs/a.txt', deleted: ['docs/a.txt'], count: 1, more: false });
  const again = await gateway().delete(base()).query({ key: 'docs/a.txt' }).set(bearer(c.admin.api_key));
  expect(again.body).toMatchObject({ deleted: [], count: 0 });
  const many = await gateway().delete(base()).query({ prefix: 'docs/s' }).set(bearer(c.admin.api_key));
  expect(many.body).toMatchObject({ prefix: 'docs/s', deleted: ['docs/sub/c.txt'], count: 1, more: false });
  const left = await gateway().get(base()).query({ prefix: 'docs/', delimiter: '' }).set(bearer(c.reader.api_key));
  expect(left.body.objects.map((o: { key: string }) => o.key)).toEqual(['docs/b.txt', 'docs/report one.txt']);
  expect((await gateway().get(base()).query({ prefix: '_sink/', delimiter: '' }).set(bearer(c.reader.api_key))).body.count).toBe(1);
});

test('every refusal of the blob routes, with its status and code; nothing refused reaches the bucket', async () => {
  const list = (q: Record<string, string>) => gateway().get(base()).query(q).set(bearer(c.reader.api_key));
  for (const prefix of ['/docs', 'docs/../x', '..', 'x'.repeat(1025)]) expect(expectError(await list({ prefix }), 400, 'invalid_prefix').field).toBe('prefix');
  expectError(await gateway().get(`${base()}?prefix=a%00b`).set(bearer(c.reader.api_key)), 400, 'invalid_prefix');
  expect(expectError(await list({ max_keys: 'ten' }), 400, 'invalid_value').field).toBe('max_keys');
  expect(expectError(await list({ urls: 'yes' }), 400, 'invalid_value').field).toBe('urls');

  const presign = (q: Record<string, string>) => gateway().get(`${base()}/presign`).query(q).set(bearer(c.reader.api_key));
  expect(expectError(await presign({}), 400, 'missing_field').field).toBe('key');
  expect(expectError(await presign({ key: '/abs' }), 400, 'invalid_key').field).toBe('key');
  expect(expectError(await presign({ key: 'a', expires: '1.5' }), 400, 'invalid_value').field).toBe('expires');

  expect(expectError(await gateway().post(`${base()}/upload`).set(bearer(c.admin.api_key)).send('x'), 400, 'missing_field').field).toBe('key');
  expectError(await upload('a/../b', 'x'), 400, 'invalid_key');
  expect(expectError(await upload('_sink/s1/forged.ndjson', '{}'), 403, 'forbidden').reserved_prefix).toBe('_sink/');
  expectError(await upload('form.txt', 'a=b', 'application/x-www-form-urlencoded'), 415, 'unsupported_media_type');
  expectError(await upload('form.txt', '--x--', 'multipart/form-data; boundary=x'), 415, 'unsupported_media_type');
  expect(expectError(await upload('big.bin', Buffer.alloc(1_000_001), 'application/octet-stream'), 413, 'body_too_large').limit).toBe(1_000_000);
  expect((await upload('exact.bin', Buffer.alloc(1_000_000), 'application/octet-stream')).status).toBe(201);

  const del = (q: Record<string, string>) => gateway().delete(base()).query(q).set(bearer(c.admin.api_key));
  expect(expectError(await del({}), 400, 'missing_field').field).toBe('key');
  expectError(await del({ key: 'a', prefix: 'b' }), 400, 'invalid_value');
  expectError(await del({ key: '_sink/s1/b1.ndjson' }), 403, 'forbidden');
  for (const prefix of ['', '_', '_sink', '_sink/s1/']) expect(expectError(await del({ prefix }), 403, 'forbidden').reserved_prefix).toBe('_sink/');
  expectError(await del({ prefix: '/x' }), 400, 'invalid_prefix');

  const keys = (await gateway().get(base()).query({ delimiter: '' }).set(bearer(c.reader.api_key))).body.objects.map((o: { key: string }) => o.key);
  expect(keys).toContain('_sink/s1/b1.ndjson');
  expect(keys).toContain('exact.bin');
  expect(keys.filter((k: string) => ['big.bin', 'form.txt', '_sink/s1/forged.ndjson'].includes(k))).toEqual([]);
});

test('levels: a read holder lists and presigns but gets 403 on writes; an ungranted token and another tenant get 404', async () => {
  const refusedWrite = expectError(await upload('r.txt', 'x', 'text/plain', c.reader.api_key), 403, 'forbidden');
  expect(refusedWrite.can_grant).toEqual([expect.objectContaining({ principal_id: c.admin.principal_id })]);
  expectError(await gateway().delete(base()).query({ key: 'docs/b.txt' }).set(bearer(c.reader.api_key)), 403, 'forbidden');
  for (const who of [c.ungranted, c.stranger]) {
    expectError(await gateway().get(base()).set(bearer(who.api_key)), 404, 'warehouse_not_found');
    expectError(await gateway().get(`${base()}/presign`).query({ key: 'docs/b.txt' }).set(bearer(who.api_key)), 404, 'warehouse_not_found');
    expectError(await upload('x.txt', 'x', 'text/plain', who.api_key), 404, 'warehouse_not_found');
    expectError(await gateway().delete(base()).query({ key: 'docs/b.txt' }).set(bearer(who.api_key)), 404, 'warehouse_not_found');
  }
  // The stranger's own catalog of the same name is theirs, not this one.
  expectError(await gateway().get(`/v1/warehouses/${c.w.name}/blobs`).set(bearer(c.stranger.api_key)), 404, 'warehouse_not_found');
  expectError(await gateway().get(base()), 401, 'unauthorized');
  expect((await gateway().get(base()).query({ prefix: 'docs/' }).set(bearer(c.reader.api_key))).body.count).toBe(2);
});

test('the 30 s presigned URL is refused once it has expired', async () => {
  expect(shortUrl).not.toBeNull();
  const wait = shortUrl!.signedAt + 31_000 - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  const res = await curl(shortUrl!.url);
  expect(res.status).toBe(403);
  expect(res.body).toMatch(/AccessDenied|RequestExpired|expired/i);
}, 45_000);
