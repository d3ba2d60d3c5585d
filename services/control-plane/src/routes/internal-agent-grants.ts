import type { Express } from 'express';
import { z } from 'zod';
import { recordHolding } from '@floe/accounts';
import { notFound, parse, requireBootstrapSecret, route } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { agentView } from '../responses';

// GET /internal/agents/{agent_id}/grants?org_id= — what a token record holds
// now, for identity's consent page: the record bound to a person and an
// OAuth client is shown with its grants, and each catalog with the level it
// holds there. Grants live here; identity only asks. A narrow read (no keys,
// no connection block): `{agent_id, name, kind, role, status, org_id,
// grants[]}`, revoked records answered with `status: revoked`. 404
// `token_not_found` when the record is not a member of that organisation.
// Bootstrap secret only; the public gateway never forwards /internal.

const Query = z.object({ org_id: z.string().min(1).max(200) });

export function mountInternalAgentGrants(app: Express, d: ControlPlaneDeps): void {
  route(app, '/internal/agents/:agent_id/grants', {
    get: [requireBootstrapSecret(d.config.bootstrapSecret), async (req, res) => {
      const q = parse(Query, req.query, 'query');
      const agentId = String(req.params.agent_id);
      const found = await recordHolding(d.prisma, q.org_id, agentId);
      if (!found) throw notFound('token_not_found', `no token record ${agentId} in organisation ${q.org_id}`);
      const { agent_id, name, kind, role, status, org_id, grants } = agentView(found);
      res.json({ agent_id, name, kind, role, status, org_id, grants });
    }],
  });
}
