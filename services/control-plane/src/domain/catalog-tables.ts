import { notFound } from '@floe/http';
import { CatalogFailure, NAMESPACE_SEPARATOR, asCatalogError, namespaceSegment, type CatalogClient } from '../catalog-client';
import type { VisibleWarehouse } from '../store/warehouses';

// Reading a warehouse's namespaces and tables through the catalog, with the
// spec's not-found refusals that list what does exist (error rule 3).

type Json = Record<string, any>;

/** A namespace's levels as the catalog's path segment (packages/catalog-client holds the grammar). */
export const levelsPath = namespaceSegment;
/**
 * Whether a namespace can be named in a URL path at all. A single level "."
 * or ".." (the catalog refuses both now; older warehouses may hold one) is a
 * dot-segment, which every URL parser removes, %2E-encoded or not.
 */
export const isAddressable = (levels: string[]) => !(levels.length === 1 && (levels[0] === '.' || levels[0] === '..'));
/** A dotted namespace, as callers of the control plane write it, as the catalog's path segment. */
export const nsPath = (ns: string) => levelsPath(ns.split('.'));
export const nsName = (levels: string[]) => levels.join('.');

export function catalogTables(catalog: CatalogClient) {
  const namespaces = async (w: VisibleWarehouse, parent: string[] = [], depth = 0): Promise<string[][]> => {
    const out: string[][] = [];
    let pageToken: string | undefined;
    do {
      const qs = new URLSearchParams();
      if (parent.length) qs.set('parent', parent.join(NAMESPACE_SEPARATOR));
      if (pageToken) qs.set('pageToken', pageToken);
      const page = (await catalog.request(w.id, 'GET', `/namespaces${qs.size ? `?${qs}` : ''}`))!;
      for (const ns of page.namespaces as string[][]) {
        out.push(ns);
        if (depth < 4) out.push(...(await namespaces(w, ns, depth + 1)));
      }
      pageToken = page['next-page-token'] ?? undefined;
    } while (pageToken);
    return out;
  };

  /**
   * The tables of one namespace, given as levels (from a listing) or dotted
   * (from a caller). A listing passes levels: a namespace made before the
   * catalog refused "." and "/" in levels does not survive the dotted round
   * trip, and one such namespace must not fail the listing of a warehouse.
   */
  const tablesIn = async (w: VisibleWarehouse, ns: string | string[]): Promise<string[]> => {
    const path = typeof ns === 'string' ? nsPath(ns) : levelsPath(ns);
    const names: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = (await catalog.request(w.id, 'GET', `/namespaces/${path}/tables${pageToken ? `?pageToken=${encodeURIComponent(pageToken)}` : ''}`))!;
      for (const id of page.identifiers as Array<{ name: string }>) names.push(id.name);
      pageToken = page['next-page-token'] ?? undefined;
    } while (pageToken);
    return names;
  };

  const namespaceNotFound = async (w: VisibleWarehouse, ns: string) =>
    notFound('namespace_not_found', `no namespace ${ns} in catalog ${w.name}`, { available: (await namespaces(w)).map(nsName) });

  /** Loads a table, translating the catalog's not-found refusals into the spec's codes with what exists. */
  const load = async (w: VisibleWarehouse, ns: string, name: string, headers: Record<string, string> = {}): Promise<Json> => {
    try {
      return (await catalog.request(w.id, 'GET', `/namespaces/${nsPath(ns)}/tables/${encodeURIComponent(name)}`, undefined, headers))!;
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
