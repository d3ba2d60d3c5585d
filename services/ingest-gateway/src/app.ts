import type { Express } from 'express';
import { HttpError, clientAddressFor, createApp, databaseHealth } from '@floe/http';
import type { IngestDeps } from './deps';
import { mountDevice } from './routes/device';
import { mountInternalBatches } from './routes/internal-batches';
import { mountSend } from './routes/send';

// {ingest_url}: the sink send route (also reached through the public gateway),
// the device route, and the send route's intake for the MCP tool server
// (/internal, never routed by the gateway). Bodies are read by the routes themselves: the send
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
      app.use((req, _res, next) => next(d.config.sinksEnabled ? undefined : new HttpError(404, 'not_found', 'ingest sinks are switched off on this deployment')));
      mountSend(app, d);
      mountInternalBatches(app, d);
      mountDevice(app, d);
    },
  });
}
