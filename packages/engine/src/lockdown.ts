import { DuckDBInstance } from '@duckdb/node-api';
import { literal } from './sql.js';

// The lockdown every DuckDB instance of Floe's runs under (engine.ts says
// why each setting): the engine's one instance per process, and the query
// sandbox's instance per statement (query.ts) — one home, so the two cannot
// drift apart.

export interface Lockdown {
  /** The only directory the instance may read, create or list files in. */
  readable: string;
  /** Where sorts and joins larger than memory spill (under `readable`); null: nowhere, such a statement fails. */
  spill: string | null;
  /** DuckDB size syntax: '2GB', '512MiB'. */
  memoryLimit: string;
  threads: number;
}

export async function lockedDownInstance(o: Lockdown): Promise<DuckDBInstance> {
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
    allow_unsigned_extensions: 'false',
    allow_persistent_secrets: 'false',
    temp_directory: o.spill ?? '',
    memory_limit: o.memoryLimit,
    threads: String(o.threads),
  });
  try {
    // allowed_directories is refused as a creation option, so these go as SQL, in this order.
    const setup = await instance.connect();
    try {
      for (const statement of [
        "SET GLOBAL TimeZone = 'UTC'",
        `SET GLOBAL allowed_directories = [${literal(o.readable)}]`,
        'SET GLOBAL enable_external_access = false',
        'SET GLOBAL lock_configuration = true',
      ]) await setup.run(statement);
    } finally {
      setup.closeSync();
    }
  } catch (err) {
    instance.closeSync();
    throw err;
  }
  return instance;
}
