import { HttpError } from '@floe/http';
import { CatalogFailure } from '@floe/catalog-client';

export { CatalogClient, CatalogFailure, dottedLevels, vendedCredentials, type LoadTableResult } from '@floe/catalog-client';

/** A catalog refusal the routes do not translate themselves: `catalog_error` with what the catalog said. */
export function catalogError(status: number, type: string, message: string): HttpError {
  return new HttpError(status >= 500 ? 502 : status, 'catalog_error', `the catalog refused: ${message}`, {
    catalog_status: status, catalog_type: type, catalog_message: message,
  });
}

export function asCatalogError(err: unknown): unknown {
  return err instanceof CatalogFailure ? catalogError(err.status, err.type, err.message) : err;
}
