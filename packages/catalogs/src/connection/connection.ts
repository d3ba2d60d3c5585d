import { atLeast, type Level, requireLevel } from '@floe/accounts';
import type { Db } from '@floe/db';
import { HttpError } from '@floe/http';
import type { FloeConfig } from '@floe/config';
import type { CatalogSecrets } from '../credentials/catalog-credentials';
import type { VisibleWarehouse } from '../warehouses';
import { READ_ONLY_ENGINES, recipeFor, type Engine } from './recipes';

// Spec: GET /v1/connection — a ready-to-paste recipe carrying the catalog
// credential that matches the level: write holders t-<uuid>, read holders
// (and `level=read`, and the read-only platform) t-<uuid>-ro.

export interface ConnectionDeps {
  prisma: Db;
  secrets: CatalogSecrets;
  config: Pick<FloeConfig, 'catalogUrl' | 's3Url' | 's3'>;
}

/** The connection body for one warehouse and engine; also embedded in the sign-up and onboarding answers. */
export async function connectionFor(d: ConnectionDeps, w: VisibleWarehouse, engine: Engine, asked: 'read' | 'write' | null) {
  if (w.status !== 'ready') {
    throw new HttpError(503, 'provisioning', `catalog ${w.name} is still being provisioned; retry shortly`, { retry_after_seconds: 30 }, { 'Retry-After': '30' });
  }
  // Anyone who can see the catalog may ask for the read-only recipe, but only with at least read (a revoked `none` may not).
  await requireLevel(d.prisma, w, 'read', 'a connection');
  let level: Exclude<Level, 'none'>;
  if (READ_ONLY_ENGINES.includes(engine) || asked === 'read') {
    level = 'read';
  } else if (asked === 'write') {
    await requireLevel(d.prisma, w, 'write', 'a read/write connection');
    level = 'write';
  } else {
    level = atLeast(w.access.level, 'write') ? 'write' : 'read';
  }
  const credential = await d.secrets.current(d.prisma, w.id, level);
  if (!credential) {
    throw new HttpError(503, 'provisioning', `catalog ${w.name} has no current ${level} credential yet; retry shortly, or rotate its credentials`,
      { retry_after_seconds: 30 }, { 'Retry-After': '30' });
  }
  const facts = {
    catalogUri: d.config.catalogUrl,
    warehouse: w.id,
    clientId: credential.client_id,
    clientSecret: credential.client_secret,
    s3Endpoint: d.config.s3Url,
    region: d.config.s3.region,
    alias: w.name,
  };
  return {
    warehouse_id: w.id,
    warehouse: w.name,
    engine,
    level,
    catalog_uri: d.config.catalogUrl,
    warehouse_param: w.id,
    catalog_credential: credential,
    s3: { endpoint: d.config.s3Url, region: d.config.s3.region, path_style: true },
    recipe: recipeFor(engine, facts),
    note: level === 'read'
      ? 'The read-only credential (t-<uuid>-ro) reads every table and commits nothing. Storage credentials are vended per table by the catalog.'
      : 'The read/write credential (t-<uuid>) reads and commits. Keep it secret; POST /v1/warehouses/{id}/rotate replaces it. Storage credentials are vended per table by the catalog.',
  };
}
