import type { VisibleWarehouse } from '@floe/catalogs';
import { notFound } from '@floe/http';
import { CatalogFailure, asCatalogError, dottedLevels, type CatalogClient, type LoadTableResult } from '../../catalog-client';

// Reading a warehouse's namespaces and tables through the catalog, with the
// spec's not-found refusals that list what does exist (error rule 3).

/**
 * Whether a namespace can be named in a URL path at all. A single level "."
 * or ".." (the catalog refuses both now; older warehouses may hold one) is a
 * dot-segment, which every URL parser removes, %2E-encoded or not.
 */
export const isAddressable = (levels: string[]) => !(levels.length === 1 && (levels[0] === '.' || levels[0] === '..'));
export const nsName = (levels: string[]) => levels.join('.');

export function catalogTables(catalog: CatalogClient) {
  const namespaces = async (w: VisibleWarehouse, parent: string[] = [], depth = 0): Promise<string[][]> => {
    const out: string[][] = [];
    for (const ns of await catalog.listNamespaces(w.id, parent)) {
      out.push(ns);
      if (depth < 4) out.push(...(await namespaces(w, ns, depth + 1)));
    }
    return out;
  };

  /**
   * The tables of one namespace, given as levels (from a listing) or dotted
   * (from a caller). A listing passes levels: a namespace made before the
   * catalog refused "." and "/" in levels does not survive the dotted round
   * trip, and one such namespace must not fail the listing of a warehouse.
   */
  const tablesIn = async (w: VisibleWarehouse, ns: string | string[]): Promise<string[]> =>
    (await catalog.listTables(w.id, typeof ns === 'string' ? dottedLevels(ns) : ns)).map((t) => t.name);

  const namespaceNotFound = async (w: VisibleWarehouse, ns: string) =>
    notFound('namespace_not_found', `no namespace ${ns} in catalog ${w.name}`, { available: (await namespaces(w)).map(nsName) });

  /** Loads a table (`vend`: with a storage session), translating the catalog's not-found refusals into the spec's codes with what exists. */
  const load = async (w: VisibleWarehouse, ns: string, name: string, opts: { vend?: boolean } = {}): Promise<LoadTableResult> => {
    try {
      return await catalog.loadTable(w.id, { namespace: dottedLevels(ns), name }, opts);
    } catch (err) {
      if (err instanceof CatalogFailure && err.type === 'NoSuchNamespaceException') throw await namespaceNotFound(w, ns);
      if (err instanceof CatalogFailure && err.type === 'NoSuchTableException') {
        // The catalog answers NoSuchTable also when the namespace is missing (as the reference does); listing it tells which.
        const available = await tablesIn(w, ns).catch((e) => (e instanceof CatalogFailure && e.type === 'NoSuchNamespaceException' ? null : []));
        if (available === null) throw await namespaceNotFound(w, ns);
        throw notFound('table_not_found', `no table ${ns}.${name} in catalog ${w.name}`, { available });
      }
      throw asCatalogError(err);
    }
  };

  return { namespaces, tablesIn, namespaceNotFound, load };
}
