import type { RequestHandler } from 'express';
import { errors as joseErrors, jwtVerify } from 'jose';
import type { Redis } from 'ioredis';
import { CredentialCache, KeySet } from '@floe/auth';
import type { Keyring } from '@floe/db/sealed';
import type { SqlClient } from '@floe/http';
import { notAuthorized } from './errors';
import { warehouseOfCredential, type WarehouseRow } from './store/warehouses';

// The catalog accepts only catalog tokens: RS256 JWTs from identity whose
// audience is the catalog_url. API keys, control-plane tokens, send keys and
// storage keys are all refused with the same 401, saying nothing of whether
// they are valid elsewhere. A rotated-out or revoked credential's tokens stop
// at once (credential epoch, as for API keys).
//
// The credential's warehouse row (its storage identities) is cached with its
// standing under the same epoch: every change that matters to a caller —
// revoke, rotate, warehouse deletion — bumps the epoch, so a request never
// acts with keys older than the last such change, and the hot path (commit,
// load) needs no warehouse query, and opens no sealed secret key.

export interface CatalogCaller {
  clientId: string;
  warehouseId: string;
  access: 'read' | 'write';
  warehouse: WarehouseRow;
  /** Floe's own deployables acting as the warehouse (their token says so; the exchange never mints such a token): they audit their own acts. */
  floe: boolean;
}

declare global {
  namespace Express {
    interface Request {
      catalogCaller?: CatalogCaller;
    }
  }
}

const VERIFIED_MAX = 10_000;

interface CatalogClaims {
  exp?: number;
  sub: string;
  kind: string;
  warehouse_id: string;
  access: 'read' | 'write';
  floe?: boolean;
}

export class CatalogAuth {
  readonly keys: KeySet;
  private readonly standing: CredentialCache<WarehouseRow | null>;
  private readonly verified = new Map<string, CatalogClaims & { exp: number }>();

  constructor(private readonly o: { db: SqlClient; keyring: Keyring; redis: Redis; baseUrl: string; catalogUrl: string; redisPrefix: string }) {
    this.keys = new KeySet(o.db);
    this.standing = new CredentialCache(o.redis, o.redisPrefix);
  }

  async verify(token: string): Promise<CatalogCaller> {
    const claims = await this.verifiedClaims(token);
    if (claims.kind !== 'catalog' || !claims.warehouse_id) throw notAuthorized('the catalog token is not valid');
    const epoch = await this.standing.currentEpoch();
    let warehouse = this.standing.get(claims.sub, epoch);
    if (warehouse === undefined) {
      warehouse = await warehouseOfCredential(this.o.db, this.o.keyring, claims.sub);
      this.standing.set(claims.sub, epoch, warehouse);
    }
    if (!warehouse || warehouse.id !== claims.warehouse_id) throw notAuthorized('this catalog credential is no longer valid');
    return { clientId: claims.sub, warehouseId: claims.warehouse_id, access: claims.access === 'write' ? 'write' : 'read', warehouse, floe: claims.floe === true };
  }

  /**
   * The token's claims, its signature checked once: an engine sends the same
   * token with every request for up to an hour, and an RS256 verification
   * costs more CPU than the rest of a loadTable. A remembered token is still
   * refused from the second its `exp` passes.
   */
  private async verifiedClaims(token: string): Promise<CatalogClaims> {
    const hit = this.verified.get(token);
    if (hit && hit.exp * 1000 > Date.now()) return hit;
    let claims: CatalogClaims;
    try {
      ({ payload: claims } = await jwtVerify<CatalogClaims>(token, this.keys.getKey, {
        issuer: this.o.baseUrl, audience: this.o.catalogUrl, algorithms: ['RS256'],
      }));
    } catch (err) {
      this.verified.delete(token);
      throw notAuthorized(err instanceof joseErrors.JWTExpired ? 'the catalog token has expired' : 'the catalog token is not valid');
    }
    if (typeof claims.exp === 'number') {
      if (this.verified.size >= VERIFIED_MAX) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, claims as CatalogClaims & { exp: number });
    }
    return claims;
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
