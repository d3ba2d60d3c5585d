import { buildCatalogApp } from './app';
import { catalog } from './deps';
import { startPurgeLoop } from './purge';

const { config, logger, deps } = catalog.start();
await deps.auth.keys.reload();
const stopPurging = startPurgeLoop({ db: deps.db, storage: deps.storage, keyring: deps.keyring, logger });

catalog.serve(deps, buildCatalogApp(deps), { port: config.ports.catalog, details: { catalog_url: config.catalogUrl }, stop: stopPurging });
