import type { Express } from 'express';
import { requireLevel } from '@floe/accounts';
import { requireReady, resolveWarehouse } from '@floe/catalogs';
import { route, writeAudit } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { flag } from '../domain/blobs/blob-keys';
import { clearLifecycle, LIFECYCLE_NOTE, readLifecycle, setLifecycle } from '../domain/blobs/lifecycle';
import { parseLifecycleBody } from '../domain/blobs/lifecycle-rules';

// Spec: GET|PUT|DELETE /v1/warehouses/{id}/lifecycle, the blob bucket's
// lifecycle configuration. Setting or clearing needs write level
// (Authentication 6) and is audited as a catalog setting change
// (`warehouse.update`, rule counts before and after).

export function mountLifecycle(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/warehouses/:warehouse_id/lifecycle', {
    get: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.prisma, w, 'read', 'reading the lifecycle');
      requireReady(w);
      const got = await readLifecycle(d, w, flag(req.query.include_xml, 'include_xml'));
      res.json({
        warehouse_id: w.id, name: w.name, bucket: w.blobBucket, configured: got.configured, rules: got.rules, count: got.rules.length,
        ...(got.xml !== undefined ? { xml: got.xml } : {}), note: LIFECYCLE_NOTE,
      });
    }],
    put: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.prisma, w, 'write', 'setting the lifecycle');
      const parsed = parseLifecycleBody(req.body);
      requireReady(w);
      const { rules, previousCount } = await setLifecycle(d, w, parsed);
      await writeAudit(d.db, req, {
        action: 'warehouse.update', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
        data: { changes: { lifecycle_rules: rules.length }, previous: { lifecycle_rules: previousCount } },
      });
      res.json({
        warehouse_id: w.id, name: w.name, bucket: w.blobBucket, configured: true, rules, count: rules.length,
        xml_bytes: Buffer.byteLength(parsed.xml, 'utf8'), note: LIFECYCLE_NOTE,
      });
    }],
    delete: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.prisma, req.access!, String(req.params.warehouse_id));
      await requireLevel(d.prisma, w, 'write', 'clearing the lifecycle');
      requireReady(w);
      const { rulesRemoved } = await clearLifecycle(d, w);
      if (rulesRemoved > 0) {
        await writeAudit(d.db, req, {
          action: 'warehouse.update', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
          data: { changes: { lifecycle_rules: 0 }, previous: { lifecycle_rules: rulesRemoved } },
        });
      }
      res.json({
        warehouse_id: w.id, name: w.name, bucket: w.blobBucket, configured: false, had_rules: rulesRemoved > 0, rules_removed: rulesRemoved,
        rules: [], count: 0,
        note: rulesRemoved > 0 ? 'The blob bucket has no lifecycle rules now; nothing expires.' : 'The blob bucket had no lifecycle rules; nothing changed.',
      });
    }],
  });
}
