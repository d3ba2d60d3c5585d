import type { Express } from 'express';
import { lookUpHandle } from '@floe/accounts';
import { AttemptLimit } from '@floe/auth';
import { rateLimited, route } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';

// Spec: GET /v1/handles/{handle} — public, with a per-address limit (handles
// are the control plane's: organisations hold them).

/** Lookups per caller address per minute. */
const LOOKUPS_PER_MINUTE = 60;

export function mountHandles(app: Express, d: ControlPlaneDeps): void {
  const limit = new AttemptLimit(d.redis, `${d.config.redisPrefix}rl:handles:`, LOOKUPS_PER_MINUTE, 60);
  route(app, '/v1/handles/:handle', {
    get: async (req, res) => {
      const wait = await limit.take(req.ip ?? 'unknown');
      if (wait !== null) throw rateLimited(wait, `at most ${LOOKUPS_PER_MINUTE} handle lookups a minute from one address`);
      res.json(await lookUpHandle(d.prisma, String(req.params.handle)));
    },
  });
}
