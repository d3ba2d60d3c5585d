import http from 'node:http';
import type { NextFunction, Request, Response, RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { GATEWAY_PROOF_HEADER, HttpError, Replicas, connectionRefused, errorBody, signGatewayProof, type Logger } from '@floe/http';

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
 * to the next in turn (Replicas, through http-proxy-middleware's router). A replica that
 * refuses the connection is passed over for a moment, and a request without
 * a body is sent once more to another replica; one with a body cannot be (the
 * proxy has already read it into the refused connection) and gets the 503
 * below, which clients retry.
 */
export function proxyTo(targets: string | string[], logger: Logger, proofKey: Buffer | null): RequestHandler {
  const replicas = new Replicas(targets);
  const list = replicas.list;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
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
        if (connectionRefused(err) && attempt && list.length > 1) {
          replicas.refused(target);
          if (!attempt.retried && withoutBody(req) && 'status' in res && !res.headersSent) {
            attempt.retried = true;
            attempt.target = replicas.pick(target);
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
    attempts.set(req, { target: replicas.pick(), next, retried: false });
    return proxy(req, res, next);
  };
}

/** A request whose body is empty, so sending it again to another replica repeats nothing unseen. */
function withoutBody(req: Request): boolean {
  return req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length'] ?? 0) === 0;
}
