import { z } from 'zod';
import { FLOE_ERROR_CODES, SPEC_ERROR_CODES, type ErrorCode } from '@floe/http/error-codes';
import type { Operation, ResponseSpec } from './operation';

// Refusals in the document: every failure is the spec's envelope
// `{error: {code, message, request_id, …extras}}` (OAuth routes the flat
// form), one response per status, its `code` one of the codes the route
// answers at that status. Extras vary by code and stay open.

const STATUSES: Record<string, readonly number[]> = { ...SPEC_ERROR_CODES, ...FLOE_ERROR_CODES };

/**
 * Codes answered at more statuses than the registry gives: `catalog_error` carries the catalog's own
 * 4xx where it refused (services/control-plane/src/catalog-client.ts `catalogError`), 502 otherwise.
 */
const ALSO_AT: Partial<Record<ErrorCode, readonly number[]>> = { catalog_error: [400, 403, 404, 409] };

export const statusesOf = (code: ErrorCode): readonly number[] => [...(ALSO_AT[code] ?? []), ...STATUSES[code]];

/** The envelope of a refusal whose `error.code` is one of `codes`. */
export const errorEnvelope = (codes: readonly string[]) => z.object({
  error: z.looseObject({
    code: codes.length === 1 ? z.literal(codes[0]) : z.enum(codes as [string, ...string[]]),
    message: z.string(),
    request_id: z.string(),
  }),
});

export const FlatOAuthError = z.object({
  error: z.string(),
  error_description: z.string().optional(),
}).meta({ id: 'OAuthError', description: 'OAuth routes refuse in the flat form of RFC 6749.' });

/**
 * What the shared layers answer before or around a route's own work (packages/http's app and
 * malformed-input guard, packages/auth's authenticator), so each route lists only its own.
 */
const EVERY_ROUTE: ErrorCode[] = ['invalid_value', 'method_not_allowed', 'internal_error'];
/** A body's reading: unreadable JSON, over the limit, a media type the route does not take. */
const WITH_BODY: ErrorCode[] = ['unreadable_body', 'body_too_large', 'unsupported_media_type'];
/** The authenticator's refusals of an API key, a login session's token or a tool host's token (and its lock-out after wrong secrets). */
const AUTHENTICATED: ErrorCode[] = [
  'unauthorized', 'invalid_api_key', 'api_key_revoked', 'account_deleted', 'session_expired', 'session_revoked',
  'principal_suspended', 'creator_revoked', 'rate_limited',
];

function sharedCodes(op: Operation): ErrorCode[] {
  const credentialed = op.auth.some((a) => a === 'api_key' || a === 'session' || a === 'oauth');
  return [...EVERY_ROUTE, ...(op.body ? WITH_BODY : []), ...(credentialed && !op.auth.includes('none') ? AUTHENTICATED : [])];
}

const REASON: Record<number, string> = {
  400: 'Bad request', 401: 'No usable credential', 403: 'Refused for this caller', 404: 'Not found',
  405: 'Method not allowed on this path', 408: 'Request timeout', 409: 'Conflict with the current state', 410: 'Gone',
  413: 'Too large', 415: 'Unsupported media type', 429: 'Too many requests', 431: 'Headers too large',
  500: 'Unexpected failure, logged with the request id', 501: 'Not built yet', 502: 'A store or service behind this one failed',
  503: 'Unavailable for now; retry', 504: 'A store behind this one timed out',
};

/** The operation's refusals, one response per status. */
export function errorResponses(op: Operation): Record<string, ResponseSpec> {
  const codes = [...new Set([...op.errors, ...sharedCodes(op), ...(op.unbuilt ? ['not_implemented' as const] : [])])];
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    for (const status of statusesOf(code)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, ResponseSpec> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const sorted = list.sort();
    out[String(status)] = {
      description: `${REASON[status] ?? 'Refused'}: ${sorted.map((c) => `\`${c}\``).join(', ')}`,
      schema: op.flatErrors ? FlatOAuthError : errorEnvelope(sorted),
    };
  }
  return out;
}
