import { buildControlPlaneApp } from './app';
import { controlPlane } from './deps';

const { config, deps } = controlPlane.start();
await deps.auth.keys.reload();

controlPlane.serve(deps, buildControlPlaneApp(deps), { port: config.ports.controlPlane, details: { base_url: config.baseUrl } });
