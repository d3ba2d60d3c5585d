import { createHash, randomUUID } from 'node:crypto';
import { link, mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

// Table files a worker keeps on disk between statements. A data or delete
// file of an Iceberg table never changes once written (a new version is a new
// path), so a copy fetched for one statement serves the next that plans the
// same path — after the planner has checked, for that statement's table and
// caller, that the path is the table's (the fetch itself runs with the
// table's own vended session). Answers are never cached, only files. Each
// statement gets a hard link in its own directory (the only one its engine
// may read), so evicting a copy never pulls a file from under a statement.
// Least recently used goes first once the copies pass `capBytes`; a cap of 0
// keeps nothing (each statement fetches its own).

interface Entry {
  path: string;
  bytes: number;
}

export class FileCache {
  private readonly entries = new Map<string, Entry>();
  private readonly filling = new Map<string, Promise<Entry>>();
  private bytes = 0;

  constructor(private readonly dir: string, private readonly capBytes: number) {}

  /** Places the file `key` names at `target` (a hard link to the kept copy), fetching it with `fetch(localPath)` if it is not kept. Whether it was kept. */
  async place(key: string, target: string, fetch: (localPath: string) => Promise<void>): Promise<{ hit: boolean }> {
    if (this.capBytes === 0) {
      await fetch(target);
      return { hit: false };
    }
    const kept = this.entries.get(key);
    if (kept) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, kept);
      try {
        await link(kept.path, target);
        return { hit: true };
      } catch {
        this.drop(key, kept); // gone from the disk: fetched again below
      }
    }
    let pending = this.filling.get(key);
    const joined = pending !== undefined;
    if (!pending) {
      pending = this.fill(key, fetch);
      this.filling.set(key, pending);
      pending.finally(() => this.filling.delete(key)).catch(() => undefined);
    }
    const entry = await pending;
    await link(entry.path, target);
    return { hit: joined };
  }

  private async fill(key: string, fetch: (localPath: string) => Promise<void>): Promise<Entry> {
    await mkdir(this.dir, { recursive: true });
    const name = createHash('sha256').update(key).digest('hex');
    const partial = join(this.dir, `${name}.${randomUUID()}.part`);
    const path = join(this.dir, name);
    try {
      await fetch(partial);
      await rename(partial, path);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    const entry = { path, bytes: (await stat(path)).size };
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    await this.evict(key);
    return entry;
  }

  /** Drops the least recently used copies past the cap, never `newest` (the statement that fetched it links it next). */
  private async evict(newest: string): Promise<void> {
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.capBytes) break;
      if (key === newest) continue;
      this.drop(key, entry);
      await rm(entry.path, { force: true });
    }
  }

  private drop(key: string, entry: Entry): void {
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  /** Bytes kept, and files. */
  get size(): { bytes: number; files: number } {
    return { bytes: this.bytes, files: this.entries.size };
  }
}
