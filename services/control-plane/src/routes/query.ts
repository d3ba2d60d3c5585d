import type { Express } from 'express';
import { QueryBody } from '@floe/api';
import { tableWarehouse } from '@floe/catalogs';
import { parse, route } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { runQuery } from '../domain/query/run-query';

// POST /v1/query (spec: error index; Floe's shape in docs/api.md): a
// read-only statement over the catalog's tables, for anyone with read level
// on it — a token consented for reading included (the route only reads,
// whatever its method). Answers hold the caller's rows: never stored.

export function mountQuery(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/query', {
    post: [...d.authedToRead, async (req, res) => {
      const raw = (req.body ?? {}) as Record<string, unknown>;
      const body = parse(QueryBody, { ...raw, warehouse_id: text(raw.warehouse_id) ?? text(raw.warehouse) ?? raw.warehouse_id });
      const w = await tableWarehouse(d.prisma, req.access!, body, 'querying tables');
      const answer = await runQuery(d, w, body, req.requestId ?? null);
      res.set('Cache-Control', 'no-store').json(answer);
    }],
  });
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
