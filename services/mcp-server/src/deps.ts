import { recordKeyUse } from '@floe/accounts/api-keys';
import { Authenticator } from '@floe/auth';
import { deployable, type RedisDeps } from '@floe/http';
import { ControlPlaneClient } from './control-plane-client';
import { IngestClient } from './ingest-client';

/** Everything the MCP tool server touches outside the process: config, logger and pool (packages/http's deployable), and these. */
export interface McpDeps extends RedisDeps {
  /** Judges access tokens as the control plane does: the published keys, then the record's and family's standing. */
  auth: Authenticator;
  cp: ControlPlaneClient;
  ingest: IngestClient;
}

export const mcpServer = deployable<McpDeps>({
  name: 'mcp-server',
  // The pool serves the signing keys, the standing checks (cached per credential epoch) and one audit row per tool call.
  poolMax: 5,
  // Auto-pipelining folds the per-request epoch read into one round trip.
  redis: { autoPipelining: true },
  particular: ({ config, db, redis, logger }) => ({
    auth: new Authenticator({ db, redis, baseUrl: config.baseUrl, redisPrefix: config.redisPrefix, oauthResource: config.oauth.mcpUrl, recordKeyUse: (keyId) => recordKeyUse(db, keyId), trustedIssuers: config.trustedIssuers, logger }),
    cp: new ControlPlaneClient(config.upstreams.controlPlane),
    ingest: new IngestClient(config.upstreams.ingestInternal, config.bootstrapSecret),
  }),
});
