import http from 'node:http';
import type { NextFunction, Request, Response, RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { GATEWAY_PROOF_HEADER, HttpError, errorBody, signGatewayProof, type Logger } from '@floe/http';

/** How long a replica that refused a connection is passed over (it is restarting, or gone). */
const REFUSED_PAUSE_MS = 2000;

/**
 * Forwards a request unchanged (body streamed, not parsed) to one service over
 * kept-alive connections. The caller's address (req.ip, by the rule of
 * packages/http/src/client-address.ts) travels as X-Forwarded-For, set here
 * rather than appended, with X-Floe-Gateway-Proof over it: the service
 * believes that address only with a valid proof, so neither a client's own
 * X-Forwarded-For nor a client calling a service directly chooses it. The
 * request id travels as X-Request-Id.
 *
 * `targets` are the service's replicas (config.upstreams): each request goes
 * to the next in turn (http-proxy-middleware's router). A replica that
 * refuses the connection is passed over for a moment, and a request without
 * a body is sent once more to another replica; one with a body cannot be (the
 * proxy has already read it into the refused connection) and gets the 503
 * below, which clients retry.
 */
export function proxyTo(targets: string | string[], logger: Logger, proofKey: Buffer | null): RequestHandler {
  const list = [targets].flat();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const pausedUntil = new Map<string, number>();
  let turn = 0;
  const pick = (except?: string): string => {
    const others = list.filter((t) => t !== except);
    const live = others.filter((t) => (pausedUntil.get(t) ?? 0) <= Date.now());
    const from = live.length ? live : others.length ? others : list;
    turn = (turn + 1) % 1_000_000;
    return from[turn % from.length];
  };
  /** Each request's replica, and what the retry needs. */
  const attempts = new WeakMap<Request, { target: string; next: NextFunction; retried: boolean }>();

  const proxy = createProxyMiddleware<Request, Response>({
    target: list[0],
    router: (req) => attempts.get(req)?.target ?? list[0],
    agent,
    changeOrigin: false,
    proxyTimeout: 60_000,
    on: {
      proxyReq: (proxyReq, req) => {
        const address = req.ip ?? 'unknown';
        proxyReq.setHeader('x-forwarded-for', address);
        if (proofKey) proxyReq.setHeader(GATEWAY_PROOF_HEADER, signGatewayProof(proofKey, address));
        else proxyReq.removeHeader(GATEWAY_PROOF_HEADER);
        proxyReq.setHeader('x-forwarded-proto', req.protocol);
        proxyReq.setHeader('x-request-id', req.requestId);
      },
      error: (err, req, res) => {
        const attempt = attempts.get(req);
        const target = attempt?.target ?? list[0];
        if ((err as NodeJS.ErrnoException).code === 'ECONNREFUSED' && attempt && list.length > 1) {
          pausedUntil.set(target, Date.now() + REFUSED_PAUSE_MS);
          if (!attempt.retried && withoutBody(req) && 'status' in res && !res.headersSent) {
            attempt.retried = true;
            attempt.target = pick(target);
            logger.warn('upstream refused; trying another replica', { request_id: req.requestId, target, next: attempt.target });
            void proxy(req, res as Response, attempt.next);
            return;
          }
        }
        logger.error('upstream unreachable', { request_id: req.requestId, target, err: err.message });
        if (!('status' in res) || res.headersSent) {
          (res as { destroy?: () => void }).destroy?.();
          return;
        }
        const e = new HttpError(503, 'service_unavailable', 'the service behind this route is not answering; retry with backoff',
          { retry_after_seconds: 2 }, { 'Retry-After': '2' });
        res.status(503).set(e.headers).json(errorBody(e, req.requestId));
      },
    },
  });
  return (req, res, next) => {
    attempts.set(req, { target: list.length > 1 ? pick() : list[0], next, retried: false });
    return proxy(req, res, next);
  };
}

/** A request whose body is empty, so sending it again to another replica repeats nothing unseen. */
function withoutBody(req: Request): boolean {
  return req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) === 0;
}
