import type { Request } from 'express';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z, type ZodObject, type ZodRawShape } from 'zod';
import type { Logger, SqlClient } from '@floe/http';
import type { McpCaller } from '../access-token';
import type { ControlPlaneClient } from '../control-plane-client';
import type { IngestClient } from '../ingest-client';

// What a tool is: its name, the level it needs (read tools for every token,
// write tools only under `catalogs:write`), what the assistant reads about it,
// its input schema, and its work. Each tool acts with the caller's token and
// nothing more: the control plane decides what that token may see or do.

/** The argument every catalog tool takes, in the one wording the assistant reads. */
export const catalogArg = z.string().min(1).describe('The catalog (warehouse): its name, e.g. "lake", or its warehouse_id as list_catalogs shows.');

/** What a tool's work reaches: the two services, with the caller and the request id of the HTTP request carrying the call. */
export interface ToolContext {
  cp: ControlPlaneClient;
  ingest: IngestClient;
  caller: McpCaller;
  requestId: string;
}

export interface Tool<S extends ZodRawShape = ZodRawShape> {
  name: string;
  level: 'read' | 'write';
  title: string;
  description: string;
  input: S;
  run: (args: z.infer<ZodObject<S>>, c: ToolContext) => Promise<CallToolResult>;
}

/** A tool with its input's type checked against its schema. */
export const tool = <S extends ZodRawShape>(t: Tool<S>): Tool<S> => t;

/** What registering the tools of one request needs (routes/mcp.ts builds it). */
export interface ToolDeps {
  cp: ControlPlaneClient;
  ingest: IngestClient;
  db: SqlClient;
  logger: Logger;
}

export interface ToolRequest {
  caller: McpCaller;
  req: Request;
  orgId: () => Promise<string | null>;
}
