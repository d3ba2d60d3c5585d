import type { RequestHandler } from 'express';
import { forbidden, IcebergError } from './errors';

/** `{prefix}` is the warehouse id from GET /v1/config; a token reaches only its own warehouse. */
export const requirePrefix: RequestHandler = (req, _res, next) => {
  if (req.params.prefix !== req.catalogCaller!.warehouseId) {
    throw new IcebergError(404, 'NoSuchWarehouseException', `Warehouse ${req.params.prefix} not found for this credential`);
  }
  next();
};

/**
 * The same check for createNamespace, the one built operation whose REST
 * document declares no 404: another warehouse is 403 there, the same answer
 * whether or not it exists.
 */
export const requirePrefixWithout404: RequestHandler = (req, _res, next) => {
  if (req.params.prefix !== req.catalogCaller!.warehouseId) throw forbidden(`This credential is not for warehouse ${req.params.prefix}`);
  next();
};

/** Commits and other changes need the read/write credential. */
export const requireWrite: RequestHandler = (req, _res, next) => {
  if (req.catalogCaller!.access !== 'write') throw forbidden('the read-only catalog credential cannot change the catalog');
  next();
};
