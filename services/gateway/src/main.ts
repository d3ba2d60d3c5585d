import { loadConfig } from '@floe/config';
import { createLogger, serve } from '@floe/http';
import { buildGatewayApp } from './app';

const config = loadConfig();
const logger = createLogger('gateway', config.logLevel);

serve(buildGatewayApp(config, logger), {
  name: 'gateway',
  port: config.ports.gateway,
  host: config.listenHost,
  logger,
  details: { base_url: config.baseUrl, identity: config.upstreams.identity.join(',') },
});
