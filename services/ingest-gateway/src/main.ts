import { buildIngestApp, buildIngestInternalApp } from './app';
import { ingestGateway } from './deps';

const { config, logger, deps } = ingestGateway.start();

// The /internal routes on a private port of their own (app.ts): started first, closed when the public server stops.
const internal = buildIngestInternalApp(deps).listen(config.ports.ingestInternal, config.listenHost, (err?: Error) => {
  if (!err) logger.info('ingest-gateway internal listener', { port: config.ports.ingestInternal, host: config.listenHost });
});
internal.on('error', (err) => {
  logger.error('ingest-gateway internal listener cannot listen', { port: config.ports.ingestInternal, err: err.message });
  process.exit(1);
});

ingestGateway.serve(deps, buildIngestApp(deps), {
  port: config.ports.ingest,
  details: { ingest_url: config.ingestUrl, internal_port: config.ports.ingestInternal },
  stop: () => new Promise<void>((resolve) => internal.close(() => resolve())),
});
