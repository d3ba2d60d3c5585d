import http from 'node:http';
import type { Request, Response, RequestHandler } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { GATEWAY_PROOF_HEADER, HttpError, errorBody, signGatewayProof, type Logger } from '@floe/http';

/**
 * Forwards a request unchanged (body streamed, not parsed) to one service over
 * kept-alive connections. The caller's address (req.ip, by the rule of
 * packages/http/src/client-address.ts) travels as X-Forwarded-For, set here
 * rather than appended, with X-Floe-Gateway-Proof over it: the service
 * believes that address only with a valid proof, so neither a client's own
 * X-Forwarded-For nor a client calling a service directly chooses it. The
 * request id travels as X-Request-Id.
 */
export function proxyTo(target: string, logger: Logger, proofKey: Buffer | null): RequestHandler {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  return createProxyMiddleware<Request, Response>({
    target,
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
}
