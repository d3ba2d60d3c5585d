import express, { type Express, type ErrorRequestHandler, type Request, type RequestHandler, type Router } from 'express';
import { NO_FORWARDING, clientAddress, trustProxyFn, type ClientAddressOptions } from './client-address';
import { HttpError, errorBody, notImplemented } from './errors';
import type { Logger } from './logger';
import { isDataException, refuseMalformedJson, refuseMalformedRequest, refuseNonJsonBody } from './malformed-input';
import { requestId } from './request-id';
import { databaseAnswers } from './sql';

export interface AppOptions {
  service: string;
  logger: Logger;
  /** Body limit of JSON bodies in bytes (the spec's 1 MB for control-plane routes). */
  bodyLimitBytes: number;
  /** Parse JSON bodies (false for the gateway, which streams them through). */
  parseJson?: boolean;
  /** Paths whose routes read their own raw bodies (any type, their own limit): JSON is not parsed for them. */
  rawBodyPaths?: RegExp;
  /** Paths whose routes take a form body as well as JSON (the OAuth token and revocation endpoints): no 415 for a form there. */
  formBodyPaths?: RegExp;
  /**
   * Whose X-Forwarded-For sets the caller's address (client-address.ts):
   * FLOE_TRUST_PROXY's hops, and for services behind the gateway its proof.
   * Default: nobody's; the caller is the TCP peer.
   */
  clientAddress?: ClientAddressOptions;
  /** Renders a failure; the spec's envelope unless a surface has its own model (the Iceberg catalog). */
  renderError?: ErrorRenderer;
  /** Adds the deployable's routes; runs after the common middleware, before 404/errors. */
  mount: (app: Express) => void;
}

/** `path` is the request's when known (a failure answered outside Express has none). */
export type ErrorRenderer = (err: HttpError, requestId: string, path?: string) => unknown;

// Each app's error renderer, for failures answered outside Express (serve's
// 'clientError' handler: a header block too large, an unparseable request).
const renderers = new WeakMap<Express, ErrorRenderer>();

/** How `app` renders a failure: the spec's envelope unless createApp was given another model. */
export function errorRendererOf(app: Express): ErrorRenderer {
  return renderers.get(app) ?? errorBody;
}

/**
 * The Express app every HTTP deployable is built on: request id in and out,
 * JSON bodies with the spec's limit, one log line per request, and the spec's
 * error envelope for every failure including unknown routes and crashes.
 */
export function createApp(opts: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // The caller's address is believed from X-Forwarded-For only as
  // client-address.ts rules (a hop the deployment names, or the gateway's
  // proof), never because the sender is on a loopback or private network.
  const addressing = opts.clientAddress ?? NO_FORWARDING;
  app.set('trust proxy', trustProxyFn(addressing.trustedHops));
  app.use(clientAddress(addressing));
  app.use(requestId());
  // An API's answers are for its caller alone, and many carry a secret shown
  // once (a key, a token, a catalog credential, vended storage keys). No cache
  // keeps any answer unless its route says so: public documents (the JWKS,
  // OpenID discovery) set their own Cache-Control.
  app.use((_req, res, next) => { res.set('Cache-Control', 'no-store'); next(); });
  app.use(accessLog(opts.logger));
  app.use(refuseMalformedRequest());
  if (opts.parseJson !== false) {
    const json = express.json({ limit: opts.bodyLimitBytes, type: ['application/json', 'application/*+json'] });
    const raw = opts.rawBodyPaths;
    app.use(refuseNonJsonBody([raw, opts.formBodyPaths].filter((r): r is RegExp => r !== undefined)));
    app.use(raw ? (req, res, next) => (raw.test(req.path) ? next() : json(req, res, next)) : json);
    app.use(refuseMalformedJson());
  }
  // Liveness for an orchestrator: the process answers, whatever its dependencies do (a database or catalog
  // outage must not restart every pod; /healthz, the readiness, says when one is down).
  app.get('/livez', (_req, res) => { res.json({ ok: true, service: opts.service }); });
  opts.mount(app);
  app.use((req, _res, next) => next(new HttpError(404, 'not_found', `no route for ${req.method} ${req.path}`)));
  app.use(errorHandler(opts.logger, opts.bodyLimitBytes, opts.renderError));
  if (opts.renderError) renderers.set(app, opts.renderError);
  return app;
}

function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.http('request', {
        request_id: req.requestId, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10,
      });
    });
    next();
  };
}

/** Turns any error into the envelope; unexpected ones are 500 and logged with the request id. */
export function errorHandler(
  logger: Logger,
  bodyLimitBytes: number,
  render: ErrorRenderer = errorBody,
): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const known = knownFailure(err, bodyLimitBytes, logger, req);
    if (!known) {
      logger.error('unhandled error', { request_id: req.requestId, method: req.method, path: req.path, err });
    }
    const httpErr = known ?? new HttpError(500, 'internal_error', 'an unexpected error occurred; it has been logged with this request id');
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(httpErr.status).set(httpErr.headers).json(render(httpErr, req.requestId, req.path));
  };
}

/**
 * A failure that is the request's, not ours, as an HttpError: what
 * `toHttpError` knows, and a value the database refused. Null for anything
 * unexpected. Every error renderer of a deployable (the envelope's here, the
 * OAuth flat form's) asks this one question.
 */
export function knownFailure(err: unknown, bodyLimitBytes: number, logger: Logger, req: Request): HttpError | null {
  const known = toHttpError(err, bodyLimitBytes);
  if (known || !isDataException(err)) return known;
  // A safety net behind the edge checks: a value Postgres refuses (a NUL
  // that only appears after decoding, say) is the caller's input, not our
  // failure. Logged at warn so a real bug of this class still shows.
  logger.warn('refused a value the database cannot take', { request_id: req.requestId, method: req.method, path: req.path, err });
  return new HttpError(400, 'invalid_value', 'a value in this request cannot be used: it holds a character or value the database refuses');
}

/** A known failure (an HttpError, or a body parser's or router's refusal) as an HttpError; null for anything unexpected. */
export function toHttpError(err: unknown, bodyLimitBytes: number): HttpError | null {
  if (err instanceof HttpError) return err;
  // Express's router decodes route parameters with decodeURIComponent; the
  // edge check refuses broken escapes first, this catches any other decoder.
  if (err instanceof URIError) return new HttpError(400, 'invalid_value', 'the request holds a broken percent-escape', { field: 'path' });
  const e = err as { type?: string; status?: number; limit?: number } | null;
  switch (e?.type) {
    case 'entity.too.large': {
      // A route's own parser may have a smaller limit than the app's (the catalog's token route: 16 KiB).
      const limit = typeof e.limit === 'number' ? e.limit : bodyLimitBytes;
      return new HttpError(413, 'body_too_large', `request body is larger than ${limit} bytes`, { limit });
    }
    case 'parameters.too.many':
      return new HttpError(413, 'body_too_large', 'request body has too many form parameters');
    case 'entity.parse.failed':
      return new HttpError(400, 'invalid_value', 'request body is not valid JSON', { field: 'body' });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpError(415, 'unsupported_media_type', 'request body encoding is not supported');
    case 'request.aborted':
      return new HttpError(400, 'invalid_value', 'request body was not fully received', { field: 'body' });
    default:
      return null;
  }
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type RouteHandlers = Partial<Record<Method, RequestHandler | RequestHandler[]>>;

/**
 * Declares the methods a path answers; any other method on it is 405 with
 * `Allow`, in the envelope.
 */
export function route(router: Router | Express, path: string, handlers: RouteHandlers): void {
  const r = router.route(path);
  const allowed: string[] = [];
  for (const [method, h] of Object.entries(handlers) as [Method, RequestHandler | RequestHandler[]][]) {
    r[method](...(Array.isArray(h) ? h : [h]));
    allowed.push(method.toUpperCase());
    if (method === 'get') allowed.push('HEAD');
  }
  r.all((req, _res, next) => {
    next(new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on ${req.path}; allowed: ${allowed.join(', ')}`,
      { allowed }, { Allow: allowed.join(', ') }));
  });
}

/** Spec routes a later issue builds: each answers 501 in the envelope (listed in the README), never a fake. */
export interface UnbuiltRoute {
  path: string;
  methods: Array<keyof RouteHandlers>;
  what: string;
  /** The spec's auth for the route; 'none' for the routes anyone may call (sign-up, login, the OAuth endpoints). */
  auth?: 'caller' | 'none';
}

/**
 * Mounts unbuilt routes. A route that will need a caller authenticates
 * first, exactly as a built one does (`authenticate`: the deployable's own
 * head of caller routes): without a usable credential it is 401, and only a
 * caller learns that it is not built yet.
 */
export function mountUnbuilt(router: Router | Express, routes: UnbuiltRoute[], authenticate: RequestHandler[]): void {
  for (const { path, methods, what, auth } of routes) {
    const handlers: RouteHandlers = {};
    const head = auth === 'none' ? [] : authenticate;
    for (const m of methods) handlers[m] = [...head, () => { throw notImplemented(what); }];
    route(router, path, handlers);
  }
}

/** GET /healthz of a service whose liveness is its database answering. */
export function databaseHealth(service: string, db: { query(text: string): Promise<unknown> }): RequestHandler {
  return async (_req, res) => {
    const ok = await databaseAnswers(db);
    res.status(ok ? 200 : 503).json({ ok, service });
  };
}
