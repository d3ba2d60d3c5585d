// `floe blobs ls|put|get|rm|presign`: files in a catalog's blob bucket (the
// bucket beside its tables, for anything that is not a table). Listing,
// presigning and deleting are Floe's routes (…/blobs, …/blobs/presign); the
// bytes of put and get move as blob-transfer.ts says: small files through
// Floe, large ones straight to the store with a short-lived uploader, and
// downloads from a presigned URL. --json answers:
//   ls:  {warehouse_id, name, bucket, prefix, delimiter, folders[], objects[], count} (every page joined)
//   put: {key, size, etag, content_type, bucket, via: "api"|"uploader"}
//   get: {key, path, size} (nothing with `-`: stdout holds the file)
//   rm:  Floe's answer; by prefix {warehouse_id, name, bucket, prefix, deleted[], count} over every call
//   presign: Floe's answer
import type { Command } from 'commander';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ok, type Answer, type FloeApi } from '../api-client.js';
import {
  API_UPLOAD_LIMIT, contentTypeOf, downloadTo, downloadToFile, uploadThroughApi, uploadThroughUploader, type Stored,
} from '../blob-transfer.js';
import { act, examples, type Ctx } from '../command.js';
import { CliError, usageError } from '../errors.js';
import { interactive, type Io } from '../io.js';
import { wholeNumber } from '../option-values.js';
import { bytesText, startBar, type Bar } from '../progress.js';

type Page = Answer<'/v1/warehouses/{warehouse_id}/blobs', 'get'>;

/** Every page of a listing, joined (what `ls --json` prints). */
export interface Listing {
  warehouse_id: string;
  name: string;
  bucket: string;
  prefix: string;
  delimiter: string;
  folders: Page['folders'];
  objects: Page['objects'];
  count: number;
}

async function listAll(api: FloeApi, catalog: string, prefix: string, recursive: boolean): Promise<Listing> {
  const folders: Page['folders'] = [];
  const objects: Page['objects'] = [];
  let token: string | undefined;
  let page: Page;
  do {
    page = await ok(api.http.GET('/v1/warehouses/{warehouse_id}/blobs', {
      params: { path: { warehouse_id: catalog }, query: { prefix, delimiter: recursive ? '' : '/', ...(token ? { token } : {}) } },
    }));
    folders.push(...page.folders);
    objects.push(...page.objects);
    token = page.next_token ?? undefined;
  } while (token);
  return { warehouse_id: page.warehouse_id, name: page.name, bucket: page.bucket, prefix, delimiter: page.delimiter, folders, objects, count: folders.length + objects.length };
}

/** Where `get` writes: the key's last segment, in `dest` when that is a directory. */
export function destinationFor(key: string, dest: string | undefined, isDirectory: boolean): string {
  const name = key.split('/').filter(Boolean).pop() ?? key;
  if (dest === undefined) return name;
  return isDirectory || dest.endsWith('/') ? join(dest, name) : dest;
}

/** Floe clamps the URL's lifetime to 30..3600 s; the command line asks only for a whole number. */
export const parseSeconds = wholeNumber(1, undefined, 'seconds');

/** Ctrl-C as an AbortSignal while `body` runs; a second Ctrl-C ends the process as usual. */
async function interruptible<T>(io: Io, stopping: string, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const interrupt = new AbortController();
  const onSigint = () => {
    io.err(`\nInterrupted: ${stopping} (Ctrl-C again to quit at once).`);
    interrupt.abort();
  };
  process.once('SIGINT', onSigint);
  try {
    return await body(interrupt.signal);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

const isInterrupted = (err: unknown) => err instanceof CliError && err.code === 'interrupted';
const sizeText = (c: Ctx, n: number) => (interactive(c.io, 'out') ? bytesText(n) : n);
const timeText = (c: Ctx, iso: string | null) => (iso && interactive(c.io, 'out') ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : iso);

export function registerBlobs(program: Command, io: Io): void {
  const blobs = program.command('blobs').description("files in a catalog's blob bucket (anything that is not a table)");

  examples(blobs.command('ls', { isDefault: true })
    .description('list files and folders under a prefix (folders first)')
    .argument('<catalog>', 'catalog name or id')
    .argument('[prefix]', 'only keys beginning with this (e.g. photos/)', '')
    .option('-r, --recursive', 'every key under the prefix, without folders')
    .action(act(io, async (c, catalog: string, prefix: string, opts: { recursive?: boolean }) => {
      const { api } = await c.session();
      const listing = await listAll(api, catalog, prefix, Boolean(opts.recursive));
      c.out.result(listing, (l) => {
        if (l.count === 0) return c.out.note(prefix ? `No files under "${prefix}" in ${l.name}.` : `No files in ${l.name} yet; add one with \`floe blobs put ${catalog} <file>\`.`);
        c.out.table(['KEY', 'SIZE', 'MODIFIED'], [
          ...l.folders.map((f) => [f.prefix, null, null]),
          ...l.objects.map((o) => [o.key, sizeText(c, o.size), timeText(c, o.last_modified)]),
        ]);
      });
    })), ['floe blobs ls lake', 'floe blobs ls lake photos/ --recursive', 'floe blobs ls lake --recursive --json | jq -r ".objects[].key"']);

  examples(blobs.command('put')
    .description(`upload a file (over ${bytesText(API_UPLOAD_LIMIT)}: straight to the store with a one-hour uploader, revoked at the end)`)
    .argument('<catalog>', 'catalog name or id')
    .argument('<file>', 'the file to upload')
    .argument('[key]', "the object key (default: the file's name)")
    .option('--content-type <type>', 'the media type stored with it (default: guessed from the extension)')
    .action(act(io, async (c, catalog: string, file: string, keyArg: string | undefined, opts: { contentType?: string }) => {
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) throw usageError(`${file} is not a file`);
      const key = keyArg ?? basename(file);
      const contentType = opts.contentType ?? contentTypeOf(file);
      // A slow link may need more than the default half-minute for the API's largest body.
      const { api } = await c.session({ timeoutMs: 120_000 });
      let stored: Stored;
      if (info.size <= API_UPLOAD_LIMIT) {
        stored = await uploadThroughApi(api, catalog, file, key, contentType);
      } else {
        // The bar starts once the uploader is made: a refusal of that is one line, not a failed bar.
        const progress: { bar?: Bar } = {};
        const onProgress = (n: number) => (progress.bar ??= startBar(io, `Uploading ${file}`, info.size, 'bytes')).tick(n);
        try {
          stored = await interruptible(io, 'stopping the upload and revoking its uploader', (signal) => uploadThroughUploader({
            api, catalog, file, key, size: info.size, contentType, signal, onProgress, note: (t) => c.out.note(t),
          }));
        } catch (err) {
          progress.bar?.fail(`Upload of ${file} ${isInterrupted(err) ? 'stopped' : 'failed'}.`);
          throw err;
        }
        progress.bar?.end(`Uploaded ${bytesText(info.size)}.`);
      }
      c.out.result(stored, (s) => c.out.fields([['key', s.key], ['size', `${bytesText(s.size)} (${s.size} bytes)`], ['etag', s.etag]]));
    })), ['floe blobs put lake report.pdf', 'floe blobs put lake ./dump.parquet exports/2026/dump.parquet', 'floe blobs put lake notes.txt --content-type "text/plain; charset=utf-8"']);

  examples(blobs.command('get')
    .description('download a file (complete or not at all: it is written under a temporary name first)')
    .argument('<catalog>', 'catalog name or id')
    .argument('<key>', 'the object key')
    .argument('[dest]', "a file or directory (default: the key's last segment here); - for stdout")
    .action(act(io, async (c, catalog: string, key: string, dest: string | undefined) => {
      const { api } = await c.session();
      const signed = await ok(api.http.GET('/v1/warehouses/{warehouse_id}/blobs/presign', { params: { path: { warehouse_id: catalog }, query: { key } } }));
      const progress: { bar?: Bar } = {};
      const transfer = {
        url: signed.url, key,
        onStart: (total: number | null) => { progress.bar = startBar(io, `Downloading ${key}`, total ?? 0, 'bytes'); },
        onProgress: (n: number) => progress.bar?.tick(n),
      };
      const path = dest === '-' ? null : destinationFor(key, dest, dest !== undefined && Boolean((await stat(dest).catch(() => null))?.isDirectory()));
      let size: number;
      try {
        size = await interruptible(io, 'stopping the download', (signal) =>
          path === null ? downloadTo({ ...transfer, signal }, process.stdout, false) : downloadToFile({ ...transfer, signal }, path));
      } catch (err) {
        progress.bar?.fail(`Download of ${key} ${isInterrupted(err) ? 'stopped' : 'failed'}${path === null ? '' : `; ${path} was not written`}.`);
        throw err;
      }
      progress.bar?.end(`Downloaded ${bytesText(size)}${path === null ? '' : ` to ${path}`}.`);
      if (path !== null) c.out.result({ key, path, size }, () => {});
    })), ['floe blobs get lake reports/q1.pdf', 'floe blobs get lake exports/dump.parquet ./data/', 'floe blobs get lake logs/app.ndjson - | jq .level']);

  examples(blobs.command('rm')
    .description('delete a file, or every file under a prefix (permanent)')
    .argument('<catalog>', 'catalog name or id')
    .argument('[key]', 'the object key')
    .option('--prefix <prefix>', 'delete every file whose key begins with this instead')
    .action(act(io, async (c, catalog: string, key: string | undefined, opts: { prefix?: string }) => {
      if ((key === undefined) === (opts.prefix === undefined)) throw usageError('name what to delete: a key, or --prefix <prefix> (one of them)');
      const { api } = await c.session();
      const path = { warehouse_id: catalog };
      if (key !== undefined) {
        await c.confirm(`Delete ${key} from ${catalog}'s blob bucket for good`);
        const gone = await ok(api.http.DELETE('/v1/warehouses/{warehouse_id}/blobs', { params: { path, query: { key } } }));
        return c.out.result(gone, (g) => c.out.note(g.count ? `Deleted ${key}.` : `Nothing was at ${key}; nothing was deleted.`));
      }
      const prefix = opts.prefix ?? '';
      await c.confirm(`Delete every file under "${prefix}" in ${catalog}'s blob bucket for good`, prefix || undefined);
      // At most a page of keys goes per call: call again while Floe says more remain.
      const deleted: string[] = [];
      let page: Answer<'/v1/warehouses/{warehouse_id}/blobs', 'delete'>;
      do {
        page = await ok(api.http.DELETE('/v1/warehouses/{warehouse_id}/blobs', { params: { path, query: { prefix } } }));
        deleted.push(...page.deleted);
        if (page.more) c.out.note(`Deleted ${deleted.length} so far…`);
      } while (page.more && page.count > 0);
      const all = { warehouse_id: page.warehouse_id, name: page.name, bucket: page.bucket, prefix, deleted, count: deleted.length };
      c.out.result(all, (a) => c.out.note(a.count ? `Deleted ${a.count} file${a.count === 1 ? '' : 's'} under "${prefix}".` : `Nothing under "${prefix}"; nothing was deleted.`));
    })), ['floe blobs rm lake reports/old.pdf', 'floe blobs rm lake --prefix tmp/ --yes']);

  examples(blobs.command('presign')
    .description('print a presigned download URL for a file (anyone holding it can read the file until it expires)')
    .argument('<catalog>', 'catalog name or id')
    .argument('<key>', 'the object key (its existence is not checked)')
    .option('--expires <seconds>', 'how long the URL works, 30 to 3600 (default 900)', parseSeconds)
    .option('--download', 'make browsers save the file rather than show it')
    .action(act(io, async (c, catalog: string, key: string, opts: { expires?: number; download?: boolean }) => {
      const { api } = await c.session();
      const signed = await ok(api.http.GET('/v1/warehouses/{warehouse_id}/blobs/presign', {
        params: { path: { warehouse_id: catalog }, query: { key, ...(opts.expires ? { expires: opts.expires } : {}), ...(opts.download ? { download: '1' as const } : {}) } },
      }));
      c.out.result(signed, (s) => {
        c.out.line(s.url);
        c.out.note(`A GET of ${s.key}, valid until ${s.expires_at} (${s.expires_in} s).`);
      });
    })), ['floe blobs presign lake reports/q1.pdf', 'curl -o q1.pdf "$(floe blobs presign lake reports/q1.pdf --expires 60)"']);
}
