import { loadConfig } from '@floe/config';
import { createLogger, serve } from '@floe/http';
import { buildControlPlaneApp } from './app';
import { closeDeps, createDeps } from './deps';

const config = loadConfig();
const logger = createLogger('control-plane', config.logLevel);
const deps = createDeps(config, logger);
await deps.auth.keys.reload();

serve(buildControlPlaneApp(deps), {
  name: 'control-plane',
  port: config.ports.controlPlane,
  host: config.listenHost,
  logger,
  details: { base_url: config.baseUrl },
  onClose: () => closeDeps(deps),
});
