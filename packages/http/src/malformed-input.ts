import type { Request, RequestHandler } from 'express';
import type { ErrorCode } from './error-codes';
import { HttpError } from './errors';

// Malformed input is refused at the edge of every deployable, before a route
// or a database sees it, as a 400 (415 for a body that is not JSON) in the
// surface's own error model (the catalog renders these HttpErrors as
// BadRequestException). The rules, one home for all services:
//
//   - every path segment must percent-decode (a broken escape made Express
//     throw while matching a route: a 500 on every service), and so must
//     every query parameter's name and value (the query parser turned a
//     broken escape into U+FFFD without a word, a value the caller never
//     sent);
//   - each query parameter comes once, as name=value: no repeats, no
//     bracketed array or object forms (no route of ours, and no parameter of
//     the Iceberg REST document, takes more than one value);
//   - no NUL (U+0000) in a decoded path segment, query name or value, or a
//     JSON body's strings and keys: Postgres text cannot hold it (22021), and
//     no name, id or setting of ours contains one;
//   - no lone surrogate (a \ud800-\udfff escape without its pair) in a JSON
//     body's strings and keys: JSON.parse accepts one, but it is no character
//     at all — written to a text column it silently becomes U+FFFD, and in a
//     jsonb value Postgres refuses it (a 500 on /oauth/register). A path or
//     query cannot carry one: its percent-escapes must decode to UTF-8;
//   - JSON bodies nest at most MAX_JSON_DEPTH levels: later recursive code
//     (validation, JSON.stringify, the catalog's lossless parser) would run
//     out of stack on deeper input, a 500;
//   - a route that reads JSON is sent JSON: a body of another media type, or
//     of none, is 415 (express.json skipped such a body without a word, and
//     the route answered 400 missing_field for fields that were sent). A
//     request with no body at all passes: many bodies are optional.
//
// Data is not input in this sense: the ingest routes store what producers
// send, NUL included, and read their own bodies.

/** Deepest nesting of arrays and objects a JSON request body may have. Iceberg schemas nest a few levels per struct; 256 is far past any real one. */
export const MAX_JSON_DEPTH = 256;

const invalid = (message: string, field: string) => new HttpError(400, 'invalid_value', message, { field });

/**
 * A NUL in these parameters' values answers the code the spec gives the
 * parameter (the blob routes' `prefix`: `invalid_prefix`; their `key` and the
 * object read's: `invalid_key`), not `invalid_value`; the gateway and the
 * service behind it must answer alike.
 */
const VALUE_CODES: Record<string, ErrorCode> = { prefix: 'invalid_prefix', key: 'invalid_key' };

/** The media types a JSON route reads (what express.json and the catalog's lossless parser take). */
export const JSON_MEDIA_TYPES = ['application/json', 'application/*+json'];

/** Whether a request carries a body: a Content-Length above 0, or a chunked one (whose length is unknown until read). */
function carriesBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length'] ?? 0);
  return !Number.isNaN(length) && length > 0;
}

/**
 * Express middleware for an app whose routes read JSON: a request carrying a
 * body that is not declared JSON is 415 `unsupported_media_type`. `except`:
 * paths whose routes read other types themselves (a file upload, the sink
 * test's form/NDJSON/CSV, the OAuth token endpoints' forms).
 */
export function refuseNonJsonBody(except: RegExp[] = []): RequestHandler {
  return (req, _res, next) => {
    if (!carriesBody(req) || except.some((r) => r.test(req.path))) return next();
    if (req.is(JSON_MEDIA_TYPES)) return next();
    const sent = req.get('content-type');
    throw new HttpError(415, 'unsupported_media_type',
      `${req.method} ${req.path} takes a JSON body (Content-Type: application/json); the body sent is ${sent ? `declared ${JSON.stringify(sent)}` : 'of no declared type'}`,
      { accepts: ['application/json'] });
  };
}

/** Express middleware: the path and query rules above, for every route of the app. */
export function refuseMalformedRequest(): RequestHandler {
  return (req, _res, next) => {
    checkPath(req.path);
    checkRawQuery(req.originalUrl);
    checkQuery(req.query as Record<string, unknown>);
    next();
  };
}

/** Each `name=value` of the query as sent must percent-decode to UTF-8 (`+` is a space, as in a form). */
function checkRawQuery(url: string): void {
  const at = url.indexOf('?');
  if (at < 0) return;
  for (const pair of url.slice(at + 1).split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const [rawName, rawValue] = eq < 0 ? [pair, ''] : [pair.slice(0, eq), pair.slice(eq + 1)];
    const name = decodesTo(rawName) ?? rawName;
    if (decodesTo(rawName) === null || decodesTo(rawValue) === null) {
      const code: ErrorCode = Object.hasOwn(VALUE_CODES, name) ? VALUE_CODES[name] : 'invalid_value';
      throw new HttpError(400, code, `query parameter ${JSON.stringify(name)} has a broken percent-escape (each % must start an escape of a UTF-8 character; a literal % is %25)`, { field: name });
    }
  }
}

function decodesTo(raw: string): string | null {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

function checkPath(path: string): void {
  for (const segment of path.split('/')) {
    if (!segment.includes('%')) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw invalid(`the path segment ${JSON.stringify(segment)} has a broken percent-escape (each % must start an escape of a UTF-8 character)`, 'path');
    }
    if (decoded.includes('\0')) throw invalid('the path holds a NUL character (%00), which no name or id contains', 'path');
  }
}

function checkQuery(query: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(query)) {
    if (name.includes('\0')) throw invalid('a query parameter name holds a NUL character (%00)', name);
    // Routes read one string per parameter; a second value or a bracketed
    // form (?p[x]=1, which other frameworks read as an object) was dropped
    // without a word, and with it the filter the caller meant.
    const bracket = name.indexOf('[');
    if (bracket > 0 || name.includes(']')) {
      throw invalid(`query parameter ${name} is in an array or object form; send ${name.slice(0, bracket > 0 ? bracket : undefined)}=<value> once`, bracket > 0 ? name.slice(0, bracket) : name);
    }
    if (typeof value !== 'string') throw invalid(`query parameter ${name} is repeated; send it once`, name);
    if (value.includes('\0')) {
      throw new HttpError(400, Object.hasOwn(VALUE_CODES, name) ? VALUE_CODES[name] : 'invalid_value', `query parameter ${name} holds a NUL character (%00)`, { field: name });
    }
  }
}

/** A UTF-16 surrogate not part of a pair: with the `u` flag a well-formed pair is one code point and does not match. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why a JSON string or key cannot be taken, or null. */
function stringProblem(s: string): string | null {
  if (s.includes('\0')) return 'a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'a lone surrogate (a \\ud800-\\udfff escape without its pair)';
  return null;
}

/**
 * Refuses a parsed JSON body with a NUL or a lone surrogate in any string or
 * key, or nested deeper than `maxDepth`; `field` names where (dotted path,
 * array indexes as numbers), as zod failures do. Iterative, so no input can
 * overflow it.
 */
export function checkJsonValue(value: unknown, maxDepth = MAX_JSON_DEPTH): void {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = stringProblem(v);
      if (problem) throw invalid(`${path || 'body'} holds ${problem}, which is refused`, path || 'body');
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > maxDepth) throw invalid(`the JSON body nests deeper than ${maxDepth} levels`, 'body');
    const entries = Array.isArray(v) ? v.map((item, i) => [String(i), item] as const) : Object.entries(v);
    for (const [key, item] of entries) {
      const at = path ? `${path}.${key}` : key;
      const problem = stringProblem(key);
      if (problem) throw invalid(`the key ${JSON.stringify(at)} holds ${problem}, which is refused`, at);
      stack.push({ value: item, path: at, depth: depth + 1 });
    }
  }
}

/** Express middleware after a JSON body parser: `checkJsonValue` on whatever it parsed. */
export function refuseMalformedJson(maxDepth = MAX_JSON_DEPTH): RequestHandler {
  return (req, _res, next) => {
    if (req.body !== undefined) checkJsonValue(req.body, maxDepth);
    next();
  };
}

const DATA_EXCEPTION = /^22[0-9A-Z]{3}$/;

/**
 * Postgres' class 22, "data exception": a value the database refuses (22021 a
 * NUL byte, 22P02 json it cannot read, 22P05 an untranslatable character,
 * 22001 too long…) — from pg itself, or wrapped by Prisma's driver adapter
 * (its `DriverAdapterError`'s cause, or a `PrismaClientKnownRequestError`'s
 * `meta.driverAdapterError`), which keeps the database's code as `originalCode`.
 */
export function isDataException(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown; name?: unknown; cause?: { originalCode?: unknown }; meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null;
  if (typeof e?.code === 'string' && DATA_EXCEPTION.test(e.code) && typeof e.severity === 'string') return true;
  const wrapped = e?.name === 'DriverAdapterError' ? e.cause?.originalCode : e?.meta?.driverAdapterError?.cause?.originalCode;
  return typeof wrapped === 'string' && DATA_EXCEPTION.test(wrapped);
}
