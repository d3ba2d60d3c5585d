import type { Express } from 'express';
import { route } from '@floe/http';
import type { FloeConfig } from '@floe/config';
import { metadataDocument, metadataPathsOf } from '../protected-resource';

// Spec (RFC 9728): GET /.well-known/oauth-protected-resource/mcp — where an
// MCP client learns which authorization server issues tokens for this tool
// server, after a 401 pointed it here. Public, and the same for everyone.

export function mountMetadata(app: Express, config: FloeConfig): void {
  const doc = metadataDocument({ mcpUrl: config.oauth.mcpUrl, baseUrl: config.baseUrl });
  for (const path of metadataPathsOf(config.oauth.mcpUrl)) {
    route(app, path, {
      get: (_req, res) => {
        // A public document: caches may keep it a while (createApp's default is no-store).
        res.set('Cache-Control', 'public, max-age=300').json(doc);
      },
    });
  }
}
