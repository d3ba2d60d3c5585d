import type { Express } from 'express';
import { resolveWarehouse, connectionFor, ENGINES, isEngine } from '@floe/catalogs';
import { badRequest } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';

// Spec: GET /v1/connection — a ready-to-paste recipe carrying the catalog
// credential that matches the level: write holders t-<uuid>, read holders
// (and `level=read`, and the read-only platform) t-<uuid>-ro.

export function mountConnection(app: Express, d: ControlPlaneDeps): void {
  app.get('/v1/connection', ...d.authed, async (req, res) => {
    const q = req.query as Record<string, unknown>;
    const which = str(q.warehouse_id) ?? str(q.warehouse);
    if (!which) throw badRequest('missing_field', 'name the catalog with ?warehouse=<id or name>', { field: 'warehouse' });
    const engine = str(q.engine) ?? 'duckdb';
    if (!isEngine(engine)) throw badRequest('unsupported_engine', `engine must be one of ${ENGINES.join(', ')}`, { field: 'engine', available: ENGINES });
    const level = str(q.level);
    if (level !== null && level !== 'read' && level !== 'write') throw badRequest('invalid_value', 'level must be read or write', { field: 'level' });
    const w = await resolveWarehouse(d.prisma, req.access!, which);
    res.json(await connectionFor(d, w, engine, level));
  });
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

