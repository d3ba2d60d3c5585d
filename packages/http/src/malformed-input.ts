import type { RequestHandler } from 'express';
import type { ErrorCode } from './error-codes';
import { HttpError } from './errors';

// Malformed input is refused at the edge of every deployable, before a route
// or a database sees it, as a 400 in the surface's own error model (the
// catalog renders these HttpErrors as BadRequestException). The rules, one
// home for all services:
//
//   - every path segment must percent-decode (a broken escape made Express
//     throw while matching a route: a 500 on every service);
//   - each query parameter comes once, as name=value: no repeats, no
//     bracketed array or object forms (no route of ours, and no parameter of
//     the Iceberg REST document, takes more than one value);
//   - no NUL (U+0000) in a decoded path segment, query name or value, or a
//     JSON body's strings and keys: Postgres text cannot hold it (22021), and
//     no name, id or setting of ours contains one;
//   - JSON bodies nest at most MAX_JSON_DEPTH levels: later recursive code
//     (validation, JSON.stringify, the catalog's lossless parser) would run
//     out of stack on deeper input, a 500.
//
// Data is not input in this sense: the ingest routes store what producers
// send, NUL included, and read their own bodies.

/** Deepest nesting of arrays and objects a JSON request body may have. Iceberg schemas nest a few levels per struct; 256 is far past any real one. */
export const MAX_JSON_DEPTH = 256;

const invalid = (message: string, field: string) => new HttpError(400, 'invalid_value', message, { field });

/**
 * A NUL in these parameters' values answers the code the spec gives the
 * parameter (the blob routes' `prefix`: `invalid_prefix`), not `invalid_value`;
 * the gateway and the service behind it must answer alike.
 */
const VALUE_CODES: Record<string, ErrorCode> = { prefix: 'invalid_prefix' };

/** Express middleware: the path and query rules above, for every route of the app. */
export function refuseMalformedRequest(): RequestHandler {
  return (req, _res, next) => {
    checkPath(req.path);
    checkQuery(req.query as Record<string, unknown>);
    next();
  };
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

/**
 * Refuses a parsed JSON body with a NUL in any string or key, or nested
 * deeper than `maxDepth`; `field` names where (dotted path, array indexes as
 * numbers), as zod failures do. Iterative, so no input can overflow it.
 */
export function checkJsonValue(value: unknown, maxDepth = MAX_JSON_DEPTH): void {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.includes('\0')) throw invalid(`${path || 'body'} holds a NUL character (\\u0000), which is refused`, path || 'body');
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > maxDepth) throw invalid(`the JSON body nests deeper than ${maxDepth} levels`, 'body');
    const entries = Array.isArray(v) ? v.map((item, i) => [String(i), item] as const) : Object.entries(v);
    for (const [key, item] of entries) {
      const at = path ? `${path}.${key}` : key;
      if (key.includes('\0')) throw invalid(`the key ${JSON.stringify(at)} holds a NUL character (\\u0000), which is refused`, at);
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

/** Postgres' class 22, "data exception": a value the database refuses (22021 a NUL byte, 22P05 an untranslatable character, 22001 too long…). */
export function isDataException(err: unknown): boolean {
  const e = err as { code?: unknown; severity?: unknown } | null;
  return typeof e?.code === 'string' && /^22[0-9A-Z]{3}$/.test(e.code) && typeof e.severity === 'string';
}
