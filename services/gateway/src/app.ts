import type { Express, RequestHandler } from 'express';
import type { FloeConfig } from '@floe/config';
import { createApp, HttpError, type Logger } from '@floe/http';
import { proxyTo } from './proxy';
import { isInternalPath, upstreamFor, type Upstream } from './route-table';

/**
 * The public {base_url}: request ids, the body limit, and routing of each path
 * to its service. Internal routes are never reachable through it.
 */
export function buildGatewayApp(config: FloeConfig, logger: Logger): Express {
  const upstreams: Record<Upstream, RequestHandler> = {
    identity: proxyTo(config.services.identity, logger),
    'control-plane': proxyTo(config.services.controlPlane, logger),
  };

  return createApp({
    service: 'gateway',
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    parseJson: false,
    trustProxy: config.gatewayTrustProxy,
    mount: (app) => {
      // The gateway's own liveness, independent of the services behind it.
      app.get('/livez', (_req, res) => { res.json({ ok: true, service: 'gateway' }); });

      app.use((req, _res, next) => {
        if (isInternalPath(req.path)) return next(new HttpError(404, 'not_found', `no route for ${req.method} ${req.path}`));
        next();
      });

      app.use(bodyLimit(config.bodyLimitBytes));

      app.use((req, res, next) => {
        const upstream = upstreamFor(req.path);
        if (!upstream) return next();
        return upstreams[upstream](req, res, next);
      });
    },
  });
}

/** Bodies up to this size are read and dropped before a 413, so a client still writing sees the answer, not a reset. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/** Refuses a declared body over the limit before it reaches a service; services enforce it again on streamed bodies. */
function bodyLimit(limit: number): RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.get('content-length') ?? 0);
    if (declared <= limit) return next();
    const refuse = () => next(new HttpError(413, 'body_too_large', `request body is larger than ${limit} bytes`, { limit }));
    if (declared > DRAIN_LIMIT_BYTES) {
      res.set('Connection', 'close');
      return refuse();
    }
    req.on('end', refuse);
    req.on('error', refuse);
    req.resume();
  };
}
