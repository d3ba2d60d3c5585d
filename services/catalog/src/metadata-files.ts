import { parseTableMetadata, type TableMetadata } from '@floe/iceberg';
import { parseS3Location, toStorageError, type ObjectClient, type StorageProvider, type StoreCredentials } from '@floe/storage';

// Metadata JSON files live in the table bucket and never change once written,
// so their text and its parsed form are cached by location: loading a table
// is one database query plus, usually, no store round trip at all. The cache
// is bounded by bytes, not by files: one table's metadata can be megabytes
// (thousands of snapshots), and a count bound let a few such tables fill the
// process's heap. The least recently used go first.

/** A parsed file's objects take several times its text's bytes: counted as this many times its length. */
const PARSED_WEIGHT = 6;

interface Entry {
  text: string;
  parsed?: TableMetadata;
  cost: number;
}

export class MetadataFiles {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  /** `budgetBytes`: the most the cache holds (FLOE_CATALOG_METADATA_CACHE_MB); a file costing more is never kept. */
  constructor(private readonly budgetBytes = 96 * 1024 * 1024) {}

  /** The file parsed; cached too (the engine never mutates the metadata it is given). */
  async readParsed(store: ObjectClient, location: string): Promise<TableMetadata> {
    const hit = this.entries.get(location);
    if (hit?.parsed) {
      this.touch(location, hit);
      return hit.parsed;
    }
    const text = await this.read(store, location);
    const meta = parseTableMetadata(text);
    this.remember(location, text, meta);
    return meta;
  }

  /** The file's text; the store is asked only the first time. */
  async read(store: ObjectClient, location: string): Promise<string> {
    const hit = this.entries.get(location);
    if (hit) {
      this.touch(location, hit);
      return hit.text;
    }
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

  /** Bytes the cache holds now, as it counts them. */
  get heldBytes(): number {
    return this.bytes;
  }

  private touch(location: string, e: Entry): void {
    this.entries.delete(location);
    this.entries.set(location, e);
  }

  private remember(location: string, text: string, parsed?: TableMetadata): void {
    const old = this.entries.get(location);
    if (old) {
      this.entries.delete(location);
      this.bytes -= old.cost;
    }
    const kept = parsed ?? old?.parsed;
    const cost = text.length * (kept ? 1 + PARSED_WEIGHT : 1);
    if (cost > this.budgetBytes) return;
    this.entries.set(location, { text, parsed: kept, cost });
    this.bytes += cost;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(k);
      this.bytes -= e.cost;
    }
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
