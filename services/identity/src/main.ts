import { loadConfig } from '@floe/config';
import { createLogger, serve } from '@floe/http';
import { buildIdentityApp } from './app';
import { closeDeps, createDeps } from './deps';

const config = loadConfig();
const logger = createLogger('identity', config.logLevel);
if (!config.bootstrapSecret) logger.warn('FLOE_BOOTSTRAP_SECRET is unset: every /internal route will refuse');

const deps = createDeps(config, logger);
const kid = await deps.signingKeys.ensure();
await deps.auth.keys.reload();

serve(buildIdentityApp(deps), {
  name: 'identity',
  port: config.ports.identity,
  host: config.listenHost,
  logger,
  details: { issuer: config.baseUrl, kid },
  onClose: () => closeDeps(deps),
});
