import { buildIdentityApp } from './app';
import { identity } from './deps';

const { config, logger, deps } = identity.start();
if (!config.bootstrapSecret) logger.warn('FLOE_BOOTSTRAP_SECRET is unset: every /internal route will refuse');
const kid = await deps.signingKeys.ensure();
await deps.auth.keys.reload();

identity.serve(deps, buildIdentityApp(deps), { port: config.ports.identity, details: { issuer: config.baseUrl, kid } });
