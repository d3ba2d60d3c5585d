import type { Express } from 'express';
import { clientAddressFor, createApp, databaseHealth } from '@floe/http';
import type { McpDeps } from './deps';
import { mountMcp } from './routes/mcp';
import { mountMetadata } from './routes/metadata';

// The MCP tool server: Floe's own tools for assistants (list catalogs and
// tables, describe and create tables, query them with SQL, connection
// recipes, usage, send rows to a sink) behind OAuth access tokens, at
// FLOE_MCP_URL through the public gateway, with its RFC 9728 resource
// metadata.
export function buildMcpApp(d: McpDeps): Express {
  return createApp({
    service: 'mcp-server',
    logger: d.logger,
    bodyLimitBytes: d.config.bodyLimitBytes,
    clientAddress: clientAddressFor(d.config, 'behind-gateway'),
    mount: (app) => {
      app.get('/healthz', databaseHealth('mcp-server', d.db));
      mountMetadata(app, d.config);
      mountMcp(app, { ...d, mcpUrl: d.config.oauth.mcpUrl });
    },
  });
}
