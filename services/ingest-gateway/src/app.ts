import type { Express, RequestHandler } from 'express';
import { HttpError, clientAddressFor, createApp, databaseHealth } from '@floe/http';
import type { IngestDeps } from './deps';
import { mountDevice } from './routes/device';
import { mountInternalBatches } from './routes/internal-batches';
import { mountSend } from './routes/send';

// {ingest_url}: the sink send route (also reached through the public gateway)
// and the device route. Bodies are read by the routes themselves: the send
// route takes up to 16 MiB, far past the control plane's 1 MB.
export function buildIngestApp(d: IngestDeps): Express {
  return createApp({
    service: 'ingest-gateway',
    logger: d.logger,
    bodyLimitBytes: d.config.bodyLimitBytes,
    parseJson: false,
    // The send route comes through the gateway (its proof); the device route straight from devices (FLOE_TRUST_PROXY's hops).
    clientAddress: clientAddressFor(d.config, 'behind-gateway'),
    mount: (app) => {
      app.get('/healthz', databaseHealth('ingest-gateway', d.db));
      app.use(sinksSwitch(d));
      mountSend(app, d);
      mountDevice(app, d);
    },
  });
}

/**
 * The private listener (FLOE_INGEST_INTERNAL_PORT): the /internal routes — the
 * send route's intake for the MCP tool server. {ingest_url} is public (devices
 * post to it directly, not through the gateway), so an internal route there
 * would be guarded by the bootstrap secret alone; on its own port it is
 * reachable only from inside the deployment, like every other /internal route.
 */
export function buildIngestInternalApp(d: IngestDeps): Express {
  return createApp({
    service: 'ingest-gateway',
    logger: d.logger,
    bodyLimitBytes: d.config.bodyLimitBytes,
    parseJson: false,
    mount: (app) => {
      app.get('/healthz', databaseHealth('ingest-gateway', d.db));
      app.use(sinksSwitch(d));
      mountInternalBatches(app, d);
    },
  });
}

/** Ingest sinks switched off for the deployment: every sink route is 404. */
function sinksSwitch(d: IngestDeps): RequestHandler {
  return (_req, _res, next) => next(d.config.sinksEnabled ? undefined : new HttpError(404, 'not_found', 'ingest sinks are switched off on this deployment'));
}
