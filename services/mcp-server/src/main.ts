import { buildMcpApp } from './app';
import { mcpServer } from './deps';

const { config, deps } = mcpServer.start();

mcpServer.serve(deps, buildMcpApp(deps), { port: config.ports.mcp, details: { mcp_url: config.oauth.mcpUrl } });
