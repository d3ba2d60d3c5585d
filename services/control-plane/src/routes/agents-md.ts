import type { Express, Request } from 'express';
import { requireLevel } from '@floe/accounts';
import { resolveWarehouse } from '@floe/catalogs';
import { route, writeAudit } from '@floe/http';
import { agentsMdAnswer, agentsMdView, entityTag } from '../agents-md-responses';
import type { ControlPlaneDeps } from '../deps';
import { readInstructions, writeAgentsMd } from '../domain/warehouses/agents-md';
import { parseAgentsMdWrite } from '../domain/warehouses/agents-md-input';

// Spec: PUT /v1/warehouses/{id}/agents-md (in the error index only: 409
// `agents_md_changed`, 413 `too_large`); Floe's shapes and its GET are in
// docs/api.md. Writing needs write level, like the other catalog settings
// (lifecycle), and is audited as one (`warehouse.update`); reading needs read.
// Not a sensitive change in the spec's sense (its `reauth_required` list does
// not name it), so no recent sign-in is asked.

const header = (req: Request, name: string): string | undefined => req.get(name) ?? undefined;

export function mountAgentsMd(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/warehouses/:warehouse_id/agents-md', {
    get: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.prisma, w, 'read', 'reading the catalog\'s instructions');
      const r = await readInstructions(d.prisma, w);
      if (r.etag) res.set('ETag', entityTag(r.etag));
      res.json(agentsMdAnswer(w, r.content === null ? null : agentsMdView(r)));
    }],
    put: [...d.authed, async (req, res) => {
      // authorize, then validate
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.prisma, w, 'write', 'writing the catalog\'s instructions');
      const input = parseAgentsMdWrite(req.body, { ifMatch: header(req, 'if-match'), ifNoneMatch: header(req, 'if-none-match') });
      // act: the compare-and-set
      const r = await writeAgentsMd(d.prisma, w, input, req.access!.principalId);
      if (r.changed) {
        await writeAudit(d.db, req, {
          action: 'warehouse.update', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
          data: {
            changes: { agents_md: { bytes: r.record.bytes, etag: r.record.etag } },
            previous: { agents_md: { bytes: r.previousBytes, etag: r.previousEtag } },
          },
        });
      }
      // answer
      if (r.record.etag) res.set('ETag', entityTag(r.record.etag));
      res.json({ ...agentsMdAnswer(w, agentsMdView(r.record)), previous_etag: r.previousEtag });
    }],
  });
}
