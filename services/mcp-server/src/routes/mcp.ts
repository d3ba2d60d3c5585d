import type { Express, Request, RequestHandler, Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { HttpError, route } from '@floe/http';
import type { Authenticator } from '@floe/auth';
import { mcpCallerOf, type McpCaller } from '../access-token';
import { callerOrg } from '../domain/caller-org';
import { challenge, metadataUrlOf } from '../protected-resource';
import { registerTools } from '../tools/register';
import type { ToolDeps } from '../tools/tool';

// The MCP endpoint (Streamable HTTP) at the path of FLOE_MCP_URL. Stateless:
// each POST gets a new server and transport (the SDK's stateless pattern), so
// any replica answers any request and nothing is kept between them; answers
// are plain JSON, not event streams. The bearer check comes first, on every
// method, and refuses in the spec's envelope with the RFC 9728 pointer.

export interface McpRouteDeps extends ToolDeps {
  mcpUrl: string;
  auth: Authenticator;
}

export function mountMcp(app: Express, d: McpRouteDeps): void {
  const path = new URL(d.mcpUrl).pathname;
  app.use(path, requireAccessToken(d.auth, metadataUrlOf(d.mcpUrl)));
  // GET (a server-to-client event stream) and DELETE (ending a session) have nothing to do without sessions: 405 with Allow.
  route(app, path, { post: (req, res) => answer(d, req, res) });
}

function requireAccessToken(auth: Authenticator, metadataUrl: string): RequestHandler {
  return async (req, res, next) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    if (!m) {
      throw new HttpError(401, 'unauthorized', 'this tool server needs an OAuth access token; the resource metadata names the authorization server',
        { resource_metadata: metadataUrl }, { 'WWW-Authenticate': challenge(metadataUrl) });
    }
    try {
      res.locals.caller = await mcpCallerOf(auth, m[1]);
    } catch (err) {
      // Every refusal of the token (bad, expired, another resource's, a revoked record or family) is the 401 that sends the client to authorize again.
      if (!(err instanceof HttpError) || (err.status !== 401 && err.status !== 403)) throw err;
      throw new HttpError(401, 'unauthorized', err.message, { resource_metadata: metadataUrl },
        { 'WWW-Authenticate': challenge(metadataUrl, { error: 'invalid_token', description: err.message }) });
    }
    next();
  };
}

async function answer(d: McpRouteDeps, req: Request, res: Response): Promise<void> {
  const caller = res.locals.caller as McpCaller;
  // A read-level token — read scope, or read grants only — lists only the read tools; a tools/call
  // registers them all, so a write tool called anyway is refused by name (tools/register.ts) or by the control plane.
  const methods = [req.body].flat().map((m) => (m as { method?: unknown } | null)?.method);
  const calling = methods.includes('tools/call');
  const withWriteTools = calling || (caller.canWrite && methods.includes('tools/list') && (await holdsWriteSomewhere(d, caller, req.requestId)));
  const server = new McpServer({ name: 'floe', version: '0.1.0' });
  registerTools(server, d, { caller, req, orgId: callerOrg(d.db, caller.recordId) }, { withWriteTools });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}

/** Whether the token record holds write on any catalog it sees (the control plane's levels); when that cannot be read, the write tools are listed and their calls judged. */
async function holdsWriteSomewhere(d: McpRouteDeps, caller: McpCaller, requestId: string): Promise<boolean> {
  try {
    const r = await d.cp.get<{ warehouses: Array<{ my_level: string }> }>(caller.token, '/v1/warehouses', { requestId });
    return r.warehouses.some((w) => w.my_level === 'write');
  } catch {
    return true;
  }
}
