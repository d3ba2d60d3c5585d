import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import { errorRendererOf, type ErrorRenderer } from './app';
import { HttpError } from './errors';
import type { Logger } from './logger';
import { newRequestId } from './request-id';

export interface ServeOptions {
  name: string;
  port: number;
  host: string;
  logger: Logger;
  /** Extra fields for the "listening" log line. */
  details?: Record<string, unknown>;
  /** Releases pools and connections once the server has stopped accepting. */
  onClose?: () => Promise<void>;
}

/**
 * Runs a deployable's app: logs when it listens, exits non-zero when it cannot
 * (so the stack runner sees the failure at once), and on SIGINT/SIGTERM stops
 * accepting, lets requests in flight finish, then releases its resources.
 */
export function serve(app: Express, o: ServeOptions): void {
  const server = app.listen(o.port, o.host, (err?: Error) => {
    // Express 5 calls this on a listen error too; the 'error' handler reports that.
    if (err) return;
    o.logger.info(`${o.name} listening`, { port: o.port, host: o.host, ...o.details });
  });
  // Longer than a typical load balancer's idle timeout, so it never closes a connection the balancer reuses.
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError(errorRendererOf(app), o.logger));
  server.on('error', (err) => {
    o.logger.error(`${o.name} cannot listen`, { port: o.port, err: err.message });
    process.exit(1);
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      o.logger.info(`${o.name} stopping`, { signal });
      server.close(() => void (o.onClose?.() ?? Promise.resolve()).finally(() => process.exit(0)));
      setTimeout(() => process.exit(0), 5_000).unref();
    });
  }
}

/** What Node's parser refused, as the failure the caller sees. */
function refusalOf(code: string | undefined): HttpError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new HttpError(431, 'headers_too_large', `the request's header block is larger than ${maxHeaderSize} bytes`, { limit: maxHeaderSize });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new HttpError(408, 'request_timeout', 'the request was not received in time');
    default:
      return new HttpError(400, 'invalid_request', 'the request is not valid HTTP/1.1');
  }
}

/**
 * Node refuses some requests before Express sees them (a header block past
 * its limit, a NUL in the request line, conflicting framing) and by default
 * answers with a bare status and an empty body. This answers in the app's own
 * error model instead, written straight to the socket (there is no response
 * object yet), with a request id like every other answer, then closes.
 */
function answerClientError(render: ErrorRenderer, logger: Logger) {
  return (err: Error & { code?: string }, socket: Duplex): void => {
    // A connection reset, or one already answered: nothing to say to anyone.
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = refusalOf(err.code);
    const requestId = newRequestId();
    const body = JSON.stringify(render(refusal, requestId));
    logger.http('request', { request_id: requestId, status: refusal.status, refused: err.code ?? err.message });
    socket.end([
      `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      `X-Request-Id: ${requestId}`,
      'Connection: close',
      '',
      body,
    ].join('\r\n'));
  };
}
