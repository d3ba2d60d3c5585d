import { loadConfig } from '@floe/config';
import { createLogger, serve } from '@floe/http';
import { buildCatalogApp } from './app';
import { closeDeps, createDeps } from './deps';
import { startPurgeLoop } from './purge';

const config = loadConfig();
const logger = createLogger('catalog', config.logLevel);
const deps = createDeps(config, logger);
await deps.auth.keys.reload();
const stopPurging = startPurgeLoop({ db: deps.db, storage: deps.storage, keyring: deps.keyring, logger });

serve(buildCatalogApp(deps), {
  name: 'catalog',
  port: config.ports.catalog,
  host: config.listenHost,
  logger,
  details: { catalog_url: config.catalogUrl },
  onClose: async () => {
    stopPurging();
    await closeDeps(deps);
  },
});
