import { buildIdentityApp } from './app';
import { identity } from './deps';
import { startIdentityJobs } from './jobs';

const { config, logger, deps } = identity.start();
if (!config.bootstrapSecret) logger.warn('FLOE_BOOTSTRAP_SECRET is unset: every /internal route will refuse');
const kid = await deps.signingKeys.ensure();
await deps.auth.keys.reload();
// The OAuth prune pass (jobs.ts); on shutdown it stops taking jobs after the server stopped accepting, before the deps close.
const jobs = startIdentityJobs(deps);

identity.serve(deps, buildIdentityApp(deps), {
  port: config.ports.identity,
  details: { issuer: config.baseUrl, kid },
  stop: () => jobs.close(),
});
