import { buildCatalogApp } from './app';
import { catalog } from './deps';
import { queueConnection, queuePrefix } from '@floe/queues';
import { startPurgeJobs } from './purge';

const { config, logger, deps } = catalog.start();
await deps.auth.keys.reload();
const purging = startPurgeJobs(
  { db: deps.db, storage: deps.storage, keyring: deps.keyring, logger },
  { connection: queueConnection(config.redisUrl), prefix: queuePrefix(config.redisPrefix) },
);

catalog.serve(deps, buildCatalogApp(deps), { port: config.ports.catalog, details: { catalog_url: config.catalogUrl }, stop: () => purging.close() });
