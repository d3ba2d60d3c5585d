import { loadConfig } from '@floe/config';
import { createLogger } from '@floe/http';
import { buildIdentityApp } from './app';
import { closeDeps, createDeps } from './deps';

const config = loadConfig();
const logger = createLogger('identity', config.logLevel);
if (!config.bootstrapSecret) logger.warn('FLOE_BOOTSTRAP_SECRET is unset: every /internal route will refuse');

const deps = createDeps(config, logger);
const kid = await deps.signingKeys.ensure();
await deps.auth.keys.reload();

const server = buildIdentityApp(deps).listen(config.ports.identity, config.listenHost, () => {
  logger.info('identity listening', { port: config.ports.identity, issuer: config.baseUrl, kid });
});
server.keepAliveTimeout = 65_000;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    logger.info('identity stopping', { signal });
    server.close(() => void closeDeps(deps).then(() => process.exit(0)));
    setTimeout(() => process.exit(0), 5_000).unref();
  });
}
