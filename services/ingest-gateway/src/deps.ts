import pg from 'pg';
import type { FloeConfig } from '@floe/config';
import type { Logger } from '@floe/http';
import { RgwStorage } from '@floe/storage';

export interface IngestDeps {
  config: FloeConfig;
  logger: Logger;
  db: pg.Pool;
  storage: RgwStorage;
}

export function createDeps(config: FloeConfig, logger: Logger): IngestDeps {
  const db = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });
  db.on('error', (err) => logger.error('postgres pool error', { err }));
  if (!config.s3.adminAccessKey || !config.s3.adminSecretKey) throw new Error('FLOE_S3_ADMIN_ACCESS_KEY and FLOE_S3_ADMIN_SECRET_KEY are required');
  const storage = new RgwStorage({ endpoint: config.s3.endpoint, region: config.s3.region, adminAccessKey: config.s3.adminAccessKey, adminSecretKey: config.s3.adminSecretKey });
  return { config, logger, db, storage };
}

export async function closeDeps(d: IngestDeps): Promise<void> {
  await d.db.end().catch(() => undefined);
}
