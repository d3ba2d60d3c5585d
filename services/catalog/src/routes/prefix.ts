import type { RequestHandler } from 'express';
import { forbidden, IcebergError } from '../errors';

/** `{prefix}` is the warehouse id from GET /v1/config; a token reaches only its own warehouse. */
export const requirePrefix: RequestHandler = (req, _res, next) => {
  if (req.params.prefix !== req.catalogCaller!.warehouseId) {
    throw new IcebergError(404, 'NoSuchWarehouseException', `Warehouse ${req.params.prefix} not found for this credential`);
  }
  next();
};

/** Commits and other changes need the read/write credential. */
export const requireWrite: RequestHandler = (req, _res, next) => {
  if (req.catalogCaller!.access !== 'write') throw forbidden('the read-only catalog credential cannot change the catalog');
  next();
};
