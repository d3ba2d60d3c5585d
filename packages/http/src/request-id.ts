import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

// An incoming id is kept (so one id follows a request across the gateway hop)
// only when it is short and plain; anything else is replaced.
const ACCEPTABLE = /^[A-Za-z0-9._:-]{8,128}$/;

export function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const id = incoming && ACCEPTABLE.test(incoming) ? incoming : newRequestId();
    req.requestId = id;
    req.headers['x-request-id'] = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}
