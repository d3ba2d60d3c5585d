// The spec's error envelope: every failure is {error:{code, message, request_id, ...}}.
// Routes throw HttpError; the app's error handler renders it. Its code is
// one of the registry's (error-codes.ts); the catalog's IcebergError and the
// OAuth routes name their own union.
import type { ErrorCode } from './error-codes';

export type ErrorExtras = Record<string, unknown>;

export class HttpError<Code extends string = ErrorCode> extends Error {
  constructor(
    readonly status: number,
    readonly code: NoInfer<Code>,
    message: string,
    readonly extras: ErrorExtras = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export function errorBody(err: HttpError<string>, requestId: string) {
  return { error: { code: err.code, message: err.message, request_id: requestId, ...err.extras } };
}

/**
 * The OAuth endpoints' flat form `{error, error_description}` (the spec's
 * "OAuth token and authorize routes use the flat form") for a failure that
 * is not an OAuth refusal of its own: the shared checks' (a malformed
 * request, a body too large, a wrong content type) as invalid_request — on
 * the registration endpoint invalid_client_metadata, the one code RFC 7591
 * gives a registration it cannot take — anything unexpected as server_error.
 */
export function flatOAuthBody(err: HttpError<string>, requestId: string, path?: string) {
  if (err.status >= 500) return { error: 'server_error', error_description: `an unexpected error occurred; it has been logged with the request id ${requestId}` };
  if (err.status === 429) return { error: 'rate_limited', error_description: err.message };
  const registration = path !== undefined && /^\/oauth\/register\/?$/.test(path) && err.status !== 405;
  return { error: registration ? 'invalid_client_metadata' : 'invalid_request', error_description: err.message };
}

/** The OAuth endpoints that answer in the flat form. */
export const isOAuthEndpoint = (path: string): boolean => path.startsWith('/oauth/');

export const notFound = (code: ErrorCode, message: string, extras?: ErrorExtras) =>
  new HttpError(404, code, message, extras);

export const forbidden = (code: ErrorCode, message: string, extras?: ErrorExtras) =>
  new HttpError(403, code, message, extras);

export const badRequest = (code: ErrorCode, message: string, extras?: ErrorExtras) =>
  new HttpError(400, code, message, extras);

export const conflict = (code: ErrorCode, message: string, extras?: ErrorExtras) =>
  new HttpError(409, code, message, extras);

/** 401 for a missing or unusable credential; says nothing about other surfaces. */
export const unauthorized = (message = 'a valid credential is required', code: ErrorCode = 'unauthorized') =>
  new HttpError(401, code, message, {}, { 'WWW-Authenticate': 'Bearer' });

export function rateLimited(retryAfterSeconds: number, message = 'too many attempts; try again later') {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new HttpError(429, 'rate_limited', message, { retry_after_seconds: seconds }, { 'Retry-After': String(seconds) });
}

/** For spec routes whose deployable or behaviour is not built yet; listed in the README. */
export const notImplemented = (what: string) =>
  new HttpError(501, 'not_implemented', `${what} is not available on this deployment yet`);
