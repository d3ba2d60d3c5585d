import type { Express } from 'express';
import { clientAddressFor, createApp, databaseHealth } from '@floe/http';
import type { ControlPlaneDeps } from './deps';
import { mountAgents } from './routes/agents';
import { mountAgentsMd } from './routes/agents-md';
import { mountAudit } from './routes/audit';
import { mountBlobs } from './routes/blobs';
import { mountConnection } from './routes/connection';
import { mountGrants } from './routes/grants';
import { mountOnboarding } from './routes/onboarding';
import { mountInvitations } from './routes/invitations';
import { mountLifecycle } from './routes/lifecycle';
import { mountObject } from './routes/object';
import { mountOperator } from './routes/operator';
import { mountOrgs } from './routes/orgs';
import { mountHandles } from './routes/handles';
import { mountInternalLifecycle } from './routes/internal-lifecycle';
import { mountInternalSinks } from './routes/internal-sinks';
import { mountInternalUsage } from './routes/internal-usage';
import { mountProjects } from './routes/projects';
import { mountPublicCatalogs } from './routes/public-catalogs';
import { mountQuery } from './routes/query';
import { mountSinkDevice } from './routes/sink-device';
import { mountSinks } from './routes/sinks';
import { mountTableMaintenance } from './routes/table-maintenance';
import { mountTables } from './routes/tables';
import { mountUnbuilt } from './routes/unbuilt';
import { mountUploaders } from './routes/uploaders';
import { mountUsage } from './routes/usage';
import { mountWarehouseActions } from './routes/warehouse-actions';
import { mountWarehouses } from './routes/warehouses';

export function buildControlPlaneApp(d: ControlPlaneDeps): Express {
  return createApp({
    service: 'control-plane',
    logger: d.logger,
    bodyLimitBytes: d.config.bodyLimitBytes,
    clientAddress: clientAddressFor(d.config, 'behind-gateway'),
    // The sink test route reads form, JSON, NDJSON or CSV bodies itself, as the device route does;
    // a blob upload's body is the file, of any type.
    rawBodyPaths: /^\/v1\/(sinks\/[^/]+\/test|warehouses\/[^/]+\/blobs\/upload)\/?$/,
    mount: (app) => {
      app.get('/healthz', databaseHealth('control-plane', d.db));
      mountOnboarding(app, d);
      mountInvitations(app, d);
      mountOrgs(app, d);
      mountAgents(app, d);
      mountProjects(app, d);
      mountWarehouses(app, d);
      mountWarehouseActions(app, d);
      mountUploaders(app, d);
      mountBlobs(app, d);
      mountObject(app, d);
      mountQuery(app, d);
      mountLifecycle(app, d);
      mountAgentsMd(app, d);
      mountGrants(app, d);
      mountTableMaintenance(app, d);
      mountTables(app, d);
      mountConnection(app, d);
      mountPublicCatalogs(app, d);
      mountSinks(app, d);
      mountSinkDevice(app, d);
      mountHandles(app, d);
      mountInternalSinks(app, d);
      mountInternalLifecycle(app, d);
      mountInternalUsage(app, d);
      mountAudit(app, d);
      mountOperator(app, d);
      mountUsage(app, d);
      mountUnbuilt(app, d);
    },
  });
}
