import { loadConfig } from '@floe/config';
import { createLogger } from '@floe/http';
import { buildGatewayApp } from './app';

const config = loadConfig();
const logger = createLogger('gateway', config.logLevel);

const server = buildGatewayApp(config, logger).listen(config.ports.gateway, config.listenHost, () => {
  logger.info('gateway listening', { port: config.ports.gateway, base_url: config.baseUrl, identity: config.services.identity });
});
server.keepAliveTimeout = 65_000;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    logger.info('gateway stopping', { signal });
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 5_000).unref();
  });
}
