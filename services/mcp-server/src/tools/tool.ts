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

/** A tool as written: its work takes the input its schema describes. */
export interface ToolSpec<S extends ZodRawShape> {
  name: string;
  level: 'read' | 'write';
  title: string;
  description: string;
  input: S;
  /** The shape of the result's structured content, for a tool that answers with one (the SDK checks each answer against it). */
  output?: ZodRawShape;
  /** This tool's own words for codes it meets, where a general word in remedies.ts would mislead (the service's own remedy still wins). */
  remedies?: Record<string, string>;
  run: (args: z.infer<ZodObject<S>>, c: ToolContext) => Promise<CallToolResult>;
}

/**
 * A tool as registered (tools/register.ts): the same, its work taking the arguments as the SDK hands them over.
 * One list holds tools of every shape, so the shape is erased here, where `tool` still knows it.
 */
export interface Tool extends Omit<ToolSpec<ZodRawShape>, 'run'> {
  run: (args: unknown, c: ToolContext) => Promise<CallToolResult>;
}

/**
 * A tool, its input's type checked against its schema. The SDK validates the arguments against the shape before the
 * call, but its type for a generic shape does not unify with zod's, so the work gets them parsed by the tool's own
 * schema rather than cast: the same check again, which keeps an input schema free of transforms (they would run twice).
 */
export function tool<S extends ZodRawShape>(spec: ToolSpec<S>): Tool {
  const schema = z.object(spec.input);
  return { ...spec, run: async (args, c) => spec.run(schema.parse(args), c) };
}

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
