import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { writeAudit } from '@floe/http';
import { ServiceRefusal, refusal } from '../service-refusal';
import { failed } from '../tool-result';
import { READ_TOOLS } from './read-tools';
import type { Tool, ToolDeps, ToolRequest } from './tool';
import { WRITE_TOOLS } from './write-tools';

// Registers the tools of one request on its server, each wrapped the same
// way: the scope check, the tool's work, refusals turned into tool errors,
// and one `mcp.tool_call` audit event per call whatever its outcome.

export const ALL_TOOLS: Tool[] = [...READ_TOOLS, ...WRITE_TOOLS];

/**
 * `withWriteTools`: false leaves the write tools out (a read-scoped token's
 * tools/list); routes/mcp.ts registers them for a tools/call whatever the
 * scope, so a write tool called anyway is refused here in words, with its
 * audit event, rather than as an unknown tool.
 */
export function registerTools(server: McpServer, d: ToolDeps, r: ToolRequest, o: { withWriteTools: boolean }): void {
  for (const t of ALL_TOOLS) {
    if (t.level === 'write' && !o.withWriteTools) continue;
    server.registerTool(t.name, {
      title: t.title, description: t.description, inputSchema: t.input, outputSchema: t.output, annotations: { readOnlyHint: t.level === 'read' },
    },
      (args: unknown) => callTool(t, args, d, r));
  }
}

async function callTool(t: Tool, args: unknown, d: ToolDeps, r: ToolRequest): Promise<CallToolResult> {
  const { caller, req } = r;
  let outcome = 'ok';
  try {
    if (t.level === 'write' && !caller.canWrite) {
      throw refusal(403, 'insufficient_scope', `${t.name} changes data, and this connection was authorized with read scope only`, {
        remedy: 'ask the person to connect the assistant again with the catalogs:write scope', scope: caller.scopes.join(' '),
      });
    }
    return await t.run(args, { cp: d.cp, ingest: d.ingest, caller, requestId: req.requestId });
  } catch (err) {
    if (!(err instanceof ServiceRefusal)) {
      const e = err as Error;
      d.logger.error('tool failed', { request_id: req.requestId, tool: t.name, name: e?.name, message: e?.message, stack: e?.stack });
      outcome = 'internal_error';
      return failed(refusal(500, 'internal_error', 'the tool failed unexpectedly; it has been logged with this request id', { request_id: req.requestId }));
    }
    // The control plane refused the token itself (revoked meanwhile): the next request here is a 401 from the same standing check.
    outcome = err.code;
    return failed(err, t.remedies);
  } finally {
    // The tool, who and through which client, and how it ended; never the arguments (rows, names of things the caller may not see).
    await writeAudit(d.db, req, {
      action: 'mcp.tool_call', actorId: caller.recordId, actorKind: 'mcp', orgId: await r.orgId(),
      data: { tool: t.name, person: caller.person, client_id: caller.clientId, outcome },
    });
  }
}
