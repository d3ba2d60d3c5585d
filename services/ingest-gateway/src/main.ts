import { loadConfig } from '@floe/config';
import { createLogger, serve } from '@floe/http';
import { buildIngestApp } from './app';
import { closeDeps, createDeps } from './deps';

const config = loadConfig();
const logger = createLogger('ingest-gateway', config.logLevel);
const deps = createDeps(config, logger);

serve(buildIngestApp(deps), {
  name: 'ingest-gateway',
  port: config.ports.ingest,
  host: config.listenHost,
  logger,
  details: { ingest_url: config.ingestUrl },
  onClose: () => closeDeps(deps),
});
