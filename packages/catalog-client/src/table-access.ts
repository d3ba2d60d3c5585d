import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { CatalogClient } from './client';
import { vendedCredentials, type LoadTableResult } from './load-result';
import type { TableMetadata } from '@floe/iceberg';
import { parseS3Location, putFile, type ListedObject, type StorageProvider } from '@floe/storage';

// One table as Floe's data-plane work reaches it (a maintenance run, a hosted
// query): its metadata as the catalog answers it, and the storage session the
// catalog vends for its location — the narrowest identity that can do the
// work. Every read, write,
// listing and removal goes through here and refuses a path outside the
// table's location (the session's policy refuses it too; this says so before
// the store does). Data files move between the store and the engine's scratch
// directory as streams, but for small ones (at most 8 MiB) fetched whole.

export interface TableRef {
  warehouseId: string;
  namespace: string[];
  table: string;
}

export interface TableAccess {
  ref: TableRef;
  loaded: LoadTableResult;
  metadata: TableMetadata;
  /** `s3://bucket/prefix` of the table, without a trailing slash. */
  location: string;
  /** Whether `path` is under the table's location (every other method refuses one that is not). */
  contains(path: string): boolean;
  read(path: string): Promise<Uint8Array>;
  /** `length` bytes from `offset` (a deletion vector's blob in its Puffin file). */
  readRange(path: string, offset: number, length: number): Promise<Uint8Array>;
  put(path: string, bytes: Uint8Array): Promise<void>;
  /** Streams an object to a local file (its folder made if missing). */
  download(path: string, localPath: string): Promise<void>;
  /** Streams a local file to an object. */
  upload(localPath: string, path: string): Promise<void>;
  /** Every object under the table's location. */
  list(): Promise<Array<ListedObject & { path: string }>>;
  /** Removes objects (absent ones are no error); how many it was asked to remove. */
  remove(paths: string[]): Promise<number>;
}

/** How many bytes of manifests and manifest lists one table's access keeps. */
const READ_CACHE_BYTES = 64 * 1024 * 1024;
/** Data files up to this size are downloaded whole (at most DOWNLOADS_AT_ONCE of them in memory at a time, compact.ts). */
const WHOLE_DOWNLOAD_BYTES = 8 * 1024 * 1024;

export class OutsideLocation extends Error {
  constructor(path: string, location: string) {
    super(`${path} is not under the table's location ${location}`);
    this.name = 'OutsideLocation';
  }
}

export async function openTable(d: { catalog: CatalogClient; storage: Pick<StorageProvider, 's3As' | 'objectsAs' | 'listObjects' | 'deleteKeys'> }, ref: TableRef): Promise<TableAccess> {
  const loaded = await d.catalog.loadTable(ref.warehouseId, { namespace: ref.namespace, name: ref.table }, { vend: true });
  return accessOf(d, ref, loaded);
}

export function accessOf(d: { storage: Pick<StorageProvider, 's3As' | 'objectsAs' | 'listObjects' | 'deleteKeys'> }, ref: TableRef, loaded: LoadTableResult): TableAccess {
  const metadata = loaded.metadata;
  const location = metadata.location.replace(/\/+$/, '');
  const root = parseS3Location(`${location}/`, 'table location');
  const creds = vendedCredentials(loaded);
  const s3 = d.storage.s3As(creds);
  const objects = d.storage.objectsAs(creds);
  const inside = (path: string) => {
    const p = parseS3Location(path, 'table file');
    if (p.bucket !== root.bucket || !p.key.startsWith(root.key)) throw new OutsideLocation(path, location);
    return p;
  };
  // Manifests and manifest lists never change once written, and a run reads the same ones
  // in its plan, its commit (each attempt) and its removals: kept while they fit.
  const cache = new Map<string, Promise<Uint8Array>>();
  let cached = 0;
  const fetchObject = async (path: string) => {
    const { bucket, key } = inside(path);
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return new Uint8Array(await out.Body!.transformToByteArray());
  };
  return {
    ref, loaded, metadata, location,
    contains(path) {
      try {
        inside(path);
        return true;
      } catch {
        return false;
      }
    },
    read(path) {
      if (!path.endsWith('.avro')) return fetchObject(path);
      let hit = cache.get(path);
      if (!hit) {
        hit = fetchObject(path);
        if (cached < READ_CACHE_BYTES) {
          cache.set(path, hit);
          hit.then((b) => { cached += b.length; }, () => cache.delete(path));
        }
      }
      return hit;
    },
    async readRange(path, offset, length) {
      const { bucket, key } = inside(path);
      if (length <= 0) return new Uint8Array(0);
      const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${offset}-${offset + length - 1}` }));
      const bytes = new Uint8Array(await out.Body!.transformToByteArray());
      if (bytes.length !== length) throw new Error(`${path}: asked for ${length} bytes at ${offset}, got ${bytes.length}`);
      return bytes;
    },
    async put(path, bytes) {
      const { bucket, key } = inside(path);
      await objects.put(bucket, key, bytes);
    },
    async download(path, localPath) {
      const { bucket, key } = inside(path);
      const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      await mkdir(dirname(localPath), { recursive: true });
      // A small file (a sink's roll) is taken whole and written once: streamed, its many
      // small writes cost more than its fetch. A big one streams.
      if ((out.ContentLength ?? Infinity) <= WHOLE_DOWNLOAD_BYTES) await writeFile(localPath, await out.Body!.transformToByteArray());
      else await pipeline(out.Body as Readable, createWriteStream(localPath));
    },
    async upload(localPath, path) {
      const { bucket, key } = inside(path);
      await putFile(s3, bucket, key, localPath);
    },
    async list() {
      const all: Array<ListedObject & { path: string }> = [];
      let token: string | undefined;
      do {
        const page = await d.storage.listObjects(root.bucket, { prefix: root.key, delimiter: '', token, maxKeys: 1000 }, creds);
        for (const o of page.objects) all.push({ ...o, path: `s3://${root.bucket}/${o.key}` });
        token = page.nextToken ?? undefined;
      } while (token);
      return all;
    },
    async remove(paths) {
      const keys = paths.map((p) => inside(p).key);
      if (keys.length) await d.storage.deleteKeys(root.bucket, keys, creds);
      return keys.length;
    },
  };
}
