import { KeySet } from '@floe/auth';
import { deployable, type ProcessDeps } from '@floe/http';
import { AccessTokens } from './access-token';
import { ControlPlaneClient } from './control-plane-client';
import { IngestClient } from './ingest-client';

/** Everything the MCP tool server touches outside the process: config, logger and pool (packages/http's deployable), and these. */
export interface McpDeps extends ProcessDeps {
  /** Verifies access tokens with the published signing keys. */
  tokens: AccessTokens;
  cp: ControlPlaneClient;
  ingest: IngestClient;
}

export const mcpServer = deployable<McpDeps>({
  name: 'mcp-server',
  // The pool serves the signing keys (a read a minute) and one audit row per tool call.
  poolMax: 5,
  particular: ({ config, db }) => ({
    tokens: new AccessTokens(new KeySet(db), { issuer: config.baseUrl, audience: config.oauth.mcpUrl }),
    cp: new ControlPlaneClient(config.services.controlPlane),
    ingest: new IngestClient(config.services.ingest, config.bootstrapSecret),
  }),
});
