import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express, type RequestHandler } from 'express';
import type { FloeConfig } from '@floe/config';
import { clientAddressFor, createApp, errorBody, flatOAuthBody, gatewayProofKey, HttpError, isOAuthEndpoint, type ErrorCode, type Logger } from '@floe/http';
import { mountApiReference } from './api-reference';
import { proxyTo } from './proxy';
import { isAdminPath, isInternalPath, isSendRoute, upstreamFor, type Upstream } from './route-table';

const SEND_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * The public {base_url}: request ids, the body limit, and routing of each path
 * to its service. Internal routes are never reachable through it; the
 * operator routes only when FLOE_ADMIN_ROUTES_PUBLIC is on.
 */
export function buildGatewayApp(config: FloeConfig, logger: Logger): Express {
  // Services believe the address the gateway forwards only with this proof.
  const proofKey = gatewayProofKey(config.bootstrapSecret);
  if (!proofKey) logger.warn('no FLOE_BOOTSTRAP_SECRET: the gateway cannot prove the addresses it forwards; services will see every caller as the gateway');
  const upstreams: Record<Upstream, RequestHandler> = {
    identity: proxyTo(config.upstreams.identity, logger, proofKey),
    'control-plane': proxyTo(config.upstreams.controlPlane, logger, proofKey),
    ingest: proxyTo(config.upstreams.ingest, logger, proofKey),
    mcp: proxyTo(config.upstreams.mcp, logger, proofKey),
  };

  return createApp({
    service: 'gateway',
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    parseJson: false,
    // The gateway's own refusals (a malformed request, a body too large) in the form the path's service answers in: flat on the OAuth endpoints.
    renderError: (err, requestId, path) => (path && isOAuthEndpoint(path) ? flatOAuthBody(err, requestId, path) : errorBody(err, requestId)),
    // The public edge: X-Forwarded-For only from FLOE_TRUST_PROXY's hops; proofs from clients are ignored.
    clientAddress: clientAddressFor(config, 'public-edge'),
    mount: (app) => {
      // Its own liveness (/livez) is createApp's, independent of the services behind it.
      app.use((req, _res, next) => {
        // Internal routes never; the operator routes only where the deployment made them public (spec: "not public by default").
        if (isInternalPath(req.path) || (isAdminPath(req.path) && !config.adminRoutesPublic)) {
          return next(new HttpError(404, 'not_found', `no route for ${req.method} ${req.path}`));
        }
        next();
      });

      // The device route lives on {ingest_url}; a device pointed at the API host is sent there with 308,
      // which keeps the method and body. Where both share one host the gateway passes it on instead.
      const ingestOrigin = new URL(config.ingestUrl).origin;
      const ingestSharesHost = ingestOrigin === new URL(config.baseUrl).origin;
      app.use('/d', (req, res, next) => {
        if (!/^\/[^/]+\/?$/.test(req.path)) return next();
        if (ingestSharesHost) return upstreams.ingest(req, res, next);
        res.redirect(308, `${ingestOrigin}${req.originalUrl}`);
      });

      app.use('/app', pages());
      app.use('/legal', legalPages());
      mountApiReference(app);

      // The send route takes batches up to 16 MiB; every other route the spec's 1 MB.
      const sendLimit = bodyLimit(SEND_BODY_LIMIT, 'batch_too_large');
      const limit = bodyLimit(config.bodyLimitBytes, 'body_too_large');
      app.use((req, res, next) => (isSendRoute(req.method, req.path) ? sendLimit : limit)(req, res, next));

      app.use((req, res, next) => {
        const upstream = upstreamFor(req.path, req.method);
        if (!upstream) return next();
        return upstreams[upstream](req, res, next);
      });
    },
  });
}

/** Bodies up to this size are read and dropped before a 413, so a client still writing sees the answer, not a reset. */
const DRAIN_LIMIT_BYTES = 32 * 1024 * 1024;

/** Refuses a declared body over the limit before it reaches a service; services enforce it again on streamed bodies. */
function bodyLimit(limit: number, code: ErrorCode): RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.get('content-length') ?? 0);
    if (declared <= limit) return next();
    const refuse = () => next(new HttpError(413, code, `request body is larger than ${limit} bytes`, { limit }));
    if (declared > DRAIN_LIMIT_BYTES) {
      res.set('Connection', 'close');
      return refuse();
    }
    req.on('end', refuse);
    req.on('error', refuse);
    req.resume();
  };
}

/** Where the pages people act on live: services/gateway/pages, served as written. */
const PAGES_DIR = fileURLToPath(new URL('../pages', import.meta.url));
/** The legal pages, served under /legal: services/gateway/legal. */
const LEGAL_DIR = fileURLToPath(new URL('../legal', import.meta.url));

/** The pages' policy: scripts, styles and images from this origin only. */
const PAGE_CSP = "default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
/** The consent page also shows the OAuth client's logo, which only an https address may give (authorize.js checks it too). */
const CONSENT_CSP = PAGE_CSP.replace("img-src 'self' data:", "img-src 'self' data: https:");

/** Static files of `dir` as pages: `/x` is x.html, each with the pages' policy and no caching beyond revalidation. */
function staticPages(dir: string): RequestHandler {
  return express.static(dir, {
    extensions: ['html'],
    index: false,
    fallthrough: true,
    setHeaders: (res, path) => {
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('Content-Security-Policy', basename(path) === 'authorize.html' ? CONSENT_CSP : PAGE_CSP);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Referrer-Policy', 'no-referrer');
    },
  });
}

/**
 * The web pages under /app: the console (home, catalog, table, sinks, blobs,
 * usage, organisation, audit, account) and the sign-up, welcome, login,
 * reset, device and authorize pages. Static files that call the public API
 * from the browser; `/app/login` is login.html; scripts and styles from this
 * origin only. `/app/` is the console's home.
 */
function pages(): RequestHandler {
  const files = staticPages(PAGES_DIR);
  return (req, res, next) => {
    if (req.path === '/' || req.path === '') return res.redirect(302, '/app/home');
    files(req, res, next);
  };
}

/** The Terms and the privacy notice the sign-up links to and records as accepted (TERMS in @floe/config names their version). */
function legalPages(): RequestHandler {
  return staticPages(LEGAL_DIR);
}
