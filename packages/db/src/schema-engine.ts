// Drives Prisma's Wasm schema engine over @prisma/adapter-pg, because the
// native engine binary `prisma migrate` wants cannot be downloaded here
// (TOOLCHAIN.md, "Prisma 7 offline").
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory, type ErrorRegistry } from '@prisma/driver-adapter-utils';
import * as bg from '@prisma/schema-engine-wasm/schema_engine_bg';

export type SchemaEngine = bg.SchemaEngine;

let loading: Promise<void> | undefined;

// The package is built for bundlers (`import * as wasm from "./x.wasm"`), which
// Node cannot do, so instantiate the module by hand and hand it to the glue.
// The glue keeps the instance in a module variable: one per process.
function loadWasm(): Promise<void> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const module = await WebAssembly.compile(await readFile(join(dirname(gluePath), 'schema_engine_bg.wasm')));
    const imports: Record<string, unknown> = { ...bg };
    // The engine arms a setTimeout for its advisory-lock timeout (10 s) and
    // never clears it; unref it, or every caller stays alive 10 s after it is done.
    for (const name of Object.keys(imports)) {
      if (name.startsWith('__wbg_setTimeout_')) {
        imports[name] = (fn: () => void, ms: number) => setTimeout(fn, ms >>> 0).unref();
      }
    }
    const instance = await WebAssembly.instantiate(module, { './schema_engine_bg.js': imports as WebAssembly.ModuleImports });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
  })();
  // A failed load (e.g. missing file) should not poison every later call.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

type PgAdapter = Awaited<ReturnType<PrismaPg['connect']>>;
type PgResult = { fields: { dataTypeID: number }[] };
type Queryable = { performIO?: (query: unknown) => Promise<PgResult>; startTransaction?: (...args: never[]) => Promise<unknown> };

const PG_CHAR_OID = 18; // the one-byte "char" of pg_catalog (relkind, contype, …)
const PG_TEXT_OID = 25;

// adapter-pg has no mapping for "char", which the engine's catalog queries
// return, so reading a live schema fails with "Column type 'char' could not
// be deserialized". pg already hands those values over as strings, so
// relabelling the column as text is enough. This reaches into adapter-pg's
// private performIO (pinned version); fail loudly if it ever moves.
function readCharAsText(queryable: Queryable): void {
  const performIO = queryable.performIO;
  if (typeof performIO !== 'function') {
    throw new Error('@prisma/adapter-pg internals changed (no performIO); review packages/db/src/schema-engine.ts');
  }
  queryable.performIO = async (query) => {
    const result = await performIO.call(queryable, query);
    for (const field of result.fields) if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
    return result;
  };
  const startTransaction = queryable.startTransaction;
  if (typeof startTransaction === 'function') {
    queryable.startTransaction = async (...args) => {
      const tx = await startTransaction.apply(queryable, args);
      readCharAsText(tx as Queryable);
      return tx;
    };
  }
}

// adapter-pg runs a migration script by splitting it at every ";" — inside
// comments, strings and dollar-quoted function bodies too — so a migration
// that creates a plpgsql function fails to apply. Postgres takes the whole
// script in one simple query (statements run in order, in one implicit
// transaction), so it is sent whole. Like readCharAsText, this reaches into
// adapter-pg's internals (pinned version); fail loudly if they move.
type ScriptRunner = { executeScript?: (script: string) => Promise<void>; client?: { query(text: string): Promise<unknown> }; onError?: (error: unknown) => never };
function runScriptsWhole(adapter: ScriptRunner): void {
  if (typeof adapter.executeScript !== 'function' || typeof adapter.client?.query !== 'function' || typeof adapter.onError !== 'function') {
    throw new Error('@prisma/adapter-pg internals changed (executeScript, client, onError); review packages/db/src/schema-engine.ts');
  }
  adapter.executeScript = async (script) => {
    try {
      await adapter.client!.query(script);
    } catch (error) {
      adapter.onError!(error);
    }
  };
}

// PrismaPg for the engine: keeps the pools it opens so they can be closed
// (freeing the engine does not dispose them, and the lock the engine takes
// lives on one of them), and refuses shadow databases: with a connectionString
// config adapter-pg's shadow database silently resolves to the main one.
class EnginePg extends PrismaPg {
  readonly opened: PgAdapter[] = [];

  override async connect(): Promise<PgAdapter> {
    const adapter = await super.connect();
    readCharAsText(adapter as unknown as Queryable);
    runScriptsWhole(adapter as unknown as ScriptRunner);
    this.opened.push(adapter);
    return adapter;
  }

  override async connectToShadowDb(): Promise<PgAdapter> {
    throw new Error('shadow databases are not supported by the offline migration runner');
  }
}

function describe(original: unknown): string {
  // DriverAdapterError keeps the database's answer in `cause` ({kind, code, message, …}).
  const cause = (original as { cause?: Record<string, unknown> } | undefined)?.cause;
  if (cause && typeof cause === 'object' && typeof cause.kind === 'string') {
    return [cause.kind, cause.code, cause.message ?? cause.originalMessage].filter(Boolean).join(': ');
  }
  return original instanceof Error ? original.message : String(original);
}

// Engine errors carry a Rust span trace ("   0: schema_commands::…") after the
// message, and adapter failures reach JS only as `External error id#N`, the
// real error waiting in the registry. Keep the message, swap the id for what
// it stands for, and keep the migration name the trace mentions.
function readableError(error: unknown, registry: ErrorRegistry): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  const traceAt = error.message.search(/\n\s+\d+: /);
  const message = traceAt < 0 ? error.message : error.message.slice(0, traceAt);
  const trace = traceAt < 0 ? '' : error.message.slice(traceAt);
  let original: unknown;
  let readable = message.replace(/External error id#(\d+)/g, (text, id: string) => {
    const record = registry.consumeError(Number(id));
    if (!record) return text;
    original = record.error;
    return describe(record.error);
  });
  const migration = /migration_name="([^"]+)"/.exec(trace)?.[1];
  if (migration) readable = `${readable} (migration ${migration})`;
  if (readable === error.message) return error;
  // Keep what callers may branch on (name, and a Prisma error code if any).
  const wrapped = new Error(readable, { cause: original ?? error });
  wrapped.name = error.name;
  const code = (error as { code?: unknown }).code;
  return code === undefined ? wrapped : Object.assign(wrapped, { code });
}

export interface EngineOptions {
  databaseUrl: string;
  schema: { path: string; content: string };
  /** Receives each log line of the engine as parsed JSON. */
  onLog?: (entry: { fields?: Record<string, unknown> }) => void;
}

/** Runs `fn` with an engine connected to `databaseUrl`, then frees everything. */
export async function withSchemaEngine<T>(opts: EngineOptions, fn: (engine: SchemaEngine) => Promise<T>): Promise<T> {
  await loadWasm();
  const pg = new EnginePg({ connectionString: opts.databaseUrl });
  const factory = bindMigrationAwareSqlAdapterFactory(pg);
  const onLog = (line: string) => {
    if (!opts.onLog) return;
    try {
      opts.onLog(JSON.parse(line));
    } catch {
      // not JSON: nothing a caller could use
    }
  };
  let engine: SchemaEngine | undefined;
  try {
    engine = await bg.SchemaEngine.new({ datamodels: [[opts.schema.path, opts.schema.content]] }, onLog, factory);
    return await fn(engine);
  } catch (error) {
    throw readableError(error, factory.errorRegistry);
  } finally {
    engine?.free();
    await Promise.allSettled(pg.opened.map((adapter) => adapter.dispose()));
  }
}
