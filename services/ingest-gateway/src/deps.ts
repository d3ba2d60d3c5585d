import pg from 'pg';
import type { FloeConfig } from '@floe/config';
import type { Logger } from '@floe/http';
import { RgwStorage, deploymentStorage } from '@floe/storage';

export interface IngestDeps {
  config: FloeConfig;
  logger: Logger;
  db: pg.Pool;
  storage: RgwStorage;
}

export function createDeps(config: FloeConfig, logger: Logger): IngestDeps {
  const db = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });
  db.on('error', (err) => logger.error('postgres pool error', { err }));
  const storage = deploymentStorage(config.s3);
  return { config, logger, db, storage };
}

export async function closeDeps(d: IngestDeps): Promise<void> {
  await d.db.end().catch(() => undefined);
}
