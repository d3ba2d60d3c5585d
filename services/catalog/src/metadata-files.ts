import { parseTableMetadata, type TableMetadata } from '@floe/iceberg';
import { parseS3Location, toStorageError, type ObjectClient, type StorageProvider, type StoreCredentials } from '@floe/storage';

// Metadata JSON files live in the table bucket and never change once written,
// so parsed reads are cached by location: loading a table is one database
// query plus, usually, no store round trip at all.

const CACHE_MAX = 2_000;

export class MetadataFiles {
  private readonly cache = new Map<string, string>();
  private readonly parsed = new Map<string, TableMetadata>();

  /** The file parsed; cached too (the engine never mutates the metadata it is given). */
  async readParsed(store: ObjectClient, location: string): Promise<TableMetadata> {
    const hit = this.parsed.get(location);
    if (hit) return hit;
    const meta = parseTableMetadata(await this.read(store, location));
    if (this.parsed.size >= CACHE_MAX) this.parsed.delete(this.parsed.keys().next().value!);
    this.parsed.set(location, meta);
    return meta;
  }

  /** The file's text; the store is asked only the first time. */
  async read(store: ObjectClient, location: string): Promise<string> {
    const hit = this.cache.get(location);
    if (hit !== undefined) return hit;
    const { bucket, key } = parseS3Location(location, 'read metadata');
    try {
      const text = await store.getText(bucket, key);
      this.remember(location, text);
      return text;
    } catch (err) {
      throw toStorageError('read metadata', err);
    }
  }

  /** Writes a new metadata file; refuses to overwrite one (a lost race must never clobber a winner's file). */
  async write(store: ObjectClient, location: string, text: string): Promise<void> {
    const { bucket, key } = parseS3Location(location, 'write metadata');
    try {
      await store.put(bucket, key, text, { contentType: 'application/json', ifNoneMatch: '*' });
    } catch (err) {
      throw toStorageError('write metadata', err);
    }
    this.remember(location, text);
  }

  private remember(location: string, text: string): void {
    if (this.cache.size >= CACHE_MAX) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(location, text);
  }
}

/** What reading a warehouse's metadata files needs: the object store and the cache. */
export interface MetadataReadDeps {
  storage: StorageProvider;
  metadata: MetadataFiles;
}

/** A metadata file's text, read as the warehouse's own identity (cached). */
export function readMetadata(d: MetadataReadDeps, wh: { rw: StoreCredentials }, location: string): Promise<string> {
  return d.metadata.read(d.storage.objectsAs(wh.rw), location);
}

/** A table metadata file, parsed, read as the warehouse's own identity (cached). */
export function readTableMetadata(d: MetadataReadDeps, wh: { rw: StoreCredentials }, location: string): Promise<TableMetadata> {
  return d.metadata.readParsed(d.storage.objectsAs(wh.rw), location);
}
