import type { Express } from 'express';
import { clientAddressFor, createApp, databaseHealth, refuseNonJsonBody } from '@floe/http';
import type { CatalogDeps } from './deps';
import { icebergErrorBody } from './errors';
import { losslessJson } from './lossless-json';
import { mountCommits } from './routes/commits';
import { mountConfig } from './routes/config';
import { mountNamespaces } from './routes/namespaces';
import { mountOAuth } from './routes/oauth';
import { mountRegisterAndMetrics } from './routes/register';
import { mountScanPlanning } from './routes/scan-planning';
import { mountRemoteSigning } from './routes/remote-signing';
import { mountFunctions } from './routes/functions';
import { mountTables } from './routes/tables';
import { mountViews } from './routes/views';
import { mountUnbuilt } from './routes/unbuilt';

export function buildCatalogApp(d: CatalogDeps): Express {
  return createApp({
    service: 'catalog',
    logger: d.logger,
    bodyLimitBytes: d.config.bodyLimitBytes,
    renderError: icebergErrorBody,
    parseJson: false,
    // Clients reach the catalog directly: X-Forwarded-For only from FLOE_TRUST_PROXY's hops.
    clientAddress: clientAddressFor(d.config, 'public-edge'),
    mount: (app) => {
      // Bodies are JSON (415 otherwise, in the Iceberg model), but for the token route's form (RFC 6749).
      app.use(refuseNonJsonBody([/^\/v1\/oauth\/tokens\/?$/]));
      app.use(losslessJson(d.config.bodyLimitBytes));
      app.get('/healthz', databaseHealth('catalog', d.db));
      mountOAuth(app, d);
      mountConfig(app, d);
      mountNamespaces(app, d);
      // Create and commit share their paths with the table routes: built once, mounted with them.
      mountTables(app, d, mountCommits(app, d));
      mountRegisterAndMetrics(app, d);
      mountScanPlanning(app, d);
      mountRemoteSigning(app, d);
      mountFunctions(app, d);
      mountViews(app, d);
      mountUnbuilt(app, d);
    },
  });
}
