import type { ZodObject, ZodType } from 'zod';
import type { ErrorCode } from '@floe/http/error-codes';

// One route of Floe's public API as its document describes it: where it is,
// who may call it, what it takes and what it answers, success and refusal.
// The document (document.ts) is built from these; the services' own request
// schemas are imported here rather than spelled twice, and the end-to-end
// suite checks every response the services give against what is said here.

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call: an API key or device-login token (`api_key`), the browser's
 * login session (`session`), an OAuth access token of a tool host (`oauth`),
 * a sink's send key (`send_key`), a sink device's token (`device_token`), or
 * no credential at all (`none`).
 */
export type Auth = 'api_key' | 'session' | 'oauth' | 'send_key' | 'device_token' | 'none';

/** Which deployable answers the route behind the gateway (the route table's target). */
export type Service = 'identity' | 'control-plane' | 'ingest-gateway' | 'gateway' | 'mcp-server';

export interface ResponseSpec {
  description: string;
  /** The JSON body; absent for an empty answer. */
  schema?: ZodType;
  /** Another media type than JSON (a page, a file, NDJSON). */
  contentType?: string;
  /** Response headers worth naming (`Retry-After`, `ETag`): an object of header schemas, each with its description in `.meta()`. */
  headers?: ZodObject;
}

export interface Operation {
  method: Method;
  /** The OpenAPI path template: `/v1/api-keys/{key_id}`. */
  path: string;
  /** operationId: a verb and a noun, unique in the document (`createApiKey`). */
  id: string;
  service: Service;
  summary: string;
  description?: string;
  auth: Auth[];
  params?: ZodObject;
  query?: ZodObject;
  body?: ZodType;
  /** The body may be left out altogether (logout, a PATCH of nothing, an onboarding with every default). */
  bodyOptional?: true;
  /** The body's media type when not JSON. */
  bodyType?: 'application/x-www-form-urlencoded' | 'application/x-ndjson' | 'application/octet-stream';
  responses: Record<number, ResponseSpec>;
  /** The error-index codes this route answers (their statuses come from the registry in @floe/http); the shared layers' (errors.ts) are added. */
  errors: ErrorCode[];
  /** A spec route a later issue builds: it answers 501 `not_implemented` after authentication. */
  unbuilt?: true;
  /** OAuth routes answer refusals in the flat form `{error, error_description}`. */
  flatErrors?: true;
}

/** Identity for type inference: a resource's operations, checked where they are written. */
export const operations = (ops: Operation[]): Operation[] => ops;
