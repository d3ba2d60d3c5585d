import type { Express } from 'express';
import type { Logger } from './logger';

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
