import type { RequestHandler } from 'express';
import { errors as joseErrors, jwtVerify } from 'jose';
import type { Redis } from 'ioredis';
import { CredentialCache, KeySet } from '@floe/auth';
import type { SqlClient } from '@floe/http';
import { notAuthorized } from './errors';

// The catalog accepts only catalog tokens: RS256 JWTs from identity whose
// audience is the catalog_url. API keys, control-plane tokens, send keys and
// storage keys are all refused with the same 401, saying nothing of whether
// they are valid elsewhere. A rotated-out or revoked credential's tokens stop
// at once (credential epoch, as for API keys).

export interface CatalogCaller {
  clientId: string;
  warehouseId: string;
  access: 'read' | 'write';
}

declare global {
  namespace Express {
    interface Request {
      catalogCaller?: CatalogCaller;
    }
  }
}

interface CatalogClaims {
  sub: string;
  kind: string;
  warehouse_id: string;
  access: 'read' | 'write';
}

export class CatalogAuth {
  readonly keys: KeySet;
  private readonly standing: CredentialCache<boolean>;

  constructor(private readonly o: { db: SqlClient; redis: Redis; baseUrl: string; catalogUrl: string; redisPrefix: string }) {
    this.keys = new KeySet(o.db);
    this.standing = new CredentialCache(o.redis, o.redisPrefix);
  }

  async verify(token: string): Promise<CatalogCaller> {
    let claims: CatalogClaims;
    try {
      ({ payload: claims } = await jwtVerify<CatalogClaims>(token, this.keys.getKey, {
        issuer: this.o.baseUrl, audience: this.o.catalogUrl, algorithms: ['RS256'],
      }));
    } catch (err) {
      throw notAuthorized(err instanceof joseErrors.JWTExpired ? 'the catalog token has expired' : 'the catalog token is not valid');
    }
    if (claims.kind !== 'catalog' || !claims.warehouse_id) throw notAuthorized('the catalog token is not valid');
    const epoch = await this.standing.currentEpoch();
    let usable = this.standing.get(claims.sub, epoch);
    if (usable === undefined) {
      const { rows } = await this.o.db.query<{ ok: boolean }>({
        name: 'catalog_credential_standing',
        text: `SELECT (c.revoked_at IS NULL AND w.deleted_at IS NULL AND w.status <> 'deleting') AS ok
                 FROM catalog_credentials c JOIN warehouses w ON w.id = c.warehouse_id WHERE c.client_id = $1`,
        values: [claims.sub],
      });
      usable = Boolean(rows[0]?.ok);
      this.standing.set(claims.sub, epoch, usable);
    }
    if (!usable) throw notAuthorized('this catalog credential is no longer valid');
    return { clientId: claims.sub, warehouseId: claims.warehouse_id, access: claims.access === 'write' ? 'write' : 'read' };
  }

  requireCaller(): RequestHandler {
    return async (req, _res, next) => {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
      if (!m) throw notAuthorized();
      req.catalogCaller = await this.verify(m[1]);
      next();
    };
  }
}
