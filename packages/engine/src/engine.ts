// The data-plane engine: one in-memory DuckDB instance, locked down before
// any caller's statement runs, that reads and writes Parquet at native speed
// for compaction and the roller (and later the query route).
//
// Every setting and why (docs/engine.md repeats them):
// - autoinstall_known_extensions=false, autoload_known_extensions=false,
//   allow_community_extensions=false, allow_unsigned_extensions=false: no
//   extension code is ever fetched or loaded. What Floe needs (parquet, json,
//   icu) is compiled into @duckdb/node-bindings; `INSTALL` fails (the
//   extension directory is outside the scratch directory) and `LOAD` of
//   anything not built in fails ("loading external extensions is disabled").
// - allowed_directories=[scratchDir], then enable_external_access=false: the
//   only files DuckDB may open, create or list are under the scratch
//   directory (its own temp directory included); `read_csv('/etc/passwd')`,
//   `COPY … TO '/elsewhere'`, `ATTACH` or `glob` outside it and `..` escapes
//   are refused. The check is on the path string: whoever fills the scratch
//   directory must not put symlinks in it.
// - temp_directory=<scratchDir>/.spill: sorts and joins larger than memory
//   spill inside the scratch directory, nowhere else.
// - memory_limit, threads: from the deployment (options), so a worker's
//   engine fits its container.
// - allow_persistent_secrets=false: no secret is written to or read from disk.
// - TimeZone=UTC: timestamptz values print and parse the same on every host.
// - lock_configuration=true, set last: no SQL can SET or RESET any of the above.
// (Applied by lockdown.ts, which the query sandbox's instances share.)
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { lockedDownInstance } from './lockdown.js';
import { openNdjsonLoad, type NdjsonLoad, type NdjsonLoadRequest } from './ndjson-load.js';
import { rewriteDataFiles, type RewriteRequest, type RewrittenFile } from './rewrite.js';
import { toRows, type Row } from './rows.js';
import { literal, pathList } from './sql.js';

export interface EngineOptions {
  /** The only directory the engine may touch; created if missing. */
  scratchDir: string;
  /** DuckDB size syntax: '2GB', '512MiB'. */
  memoryLimit: string;
  threads: number;
}

export interface Engine {
  /** The scratch directory as resolved (symlinks followed): build paths under it. */
  readonly scratchDir: string;
  /** Bin-packs data files into new files near a target size; see rewrite.ts. */
  rewriteDataFiles(request: RewriteRequest): Promise<RewrittenFile[]>;
  /** NDJSON files into Parquet data files, on one connection for the duration of `act`; see ndjson-load.ts. */
  loadNdjson<T>(request: NdjsonLoadRequest, act: (load: NdjsonLoad) => Promise<T>): Promise<T>;
  /** A Parquet file's rows as plain values (rows.ts), in file order. */
  readRows(localPath: string, limit?: number): Promise<Row[]>;
  /** Rows in Parquet files, from their footers. */
  countRows(localPaths: readonly string[]): Promise<bigint>;
  /** Any statement, under the lockdown (tests, later the query route). */
  query(sql: string): Promise<Row[]>;
  /** Frees the instance; later calls fail. */
  close(): void;
}

const SIZE = /^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;

export async function openEngine(options: EngineOptions): Promise<Engine> {
  if (!SIZE.test(options.memoryLimit)) throw new RangeError(`memoryLimit must look like '2GB', got ${options.memoryLimit}`);
  if (!Number.isInteger(options.threads) || options.threads < 1) throw new RangeError(`threads must be a positive integer, got ${options.threads}`);
  mkdirSync(options.scratchDir, { recursive: true });
  const scratchDir = realpathSync(options.scratchDir);
  const spill = join(scratchDir, '.spill');
  mkdirSync(spill, { recursive: true });

  const instance = await lockedDownInstance({ readable: scratchDir, spill, memoryLimit: options.memoryLimit, threads: options.threads });

  let open = true;
  // One connection per call: calls may overlap, and temporary tables die with their connection.
  async function withConnection<T>(act: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    if (!open) throw new Error('engine is closed');
    const c = await instance.connect();
    try {
      return await act(c);
    } finally {
      c.closeSync();
    }
  }

  return {
    scratchDir,
    rewriteDataFiles: (request) => withConnection((c) => rewriteDataFiles(c, scratchDir, request)),
    loadNdjson: (request, act) => withConnection(async (c) => act(await openNdjsonLoad(c, scratchDir, request))),
    readRows: (localPath, limit) => withConnection(async (c) => {
      const bounded = limit === undefined ? '' : ` LIMIT ${Math.max(0, Math.floor(limit))}`;
      return toRows(await c.runAndReadAll(`SELECT * FROM read_parquet(${literal(localPath)})${bounded}`));
    }),
    countRows: (localPaths) => withConnection(async (c) => {
      if (!localPaths.length) return 0n;
      const r = await c.runAndReadAll(`SELECT sum(num_rows)::BIGINT AS n FROM parquet_file_metadata(${pathList(localPaths)})`);
      return r.getRows()[0][0] as bigint;
    }),
    query: (sql) => withConnection(async (c) => toRows(await c.runAndReadAll(sql))),
    close() {
      if (!open) return;
      open = false;
      instance.closeSync();
    },
  };
}
