import { notFound } from '@floe/http';
import { CatalogFailure, asCatalogError, type CatalogClient } from '../catalog-client';
import type { VisibleWarehouse } from '../store/warehouses';

// Reading a warehouse's namespaces and tables through the catalog, with the
// spec's not-found refusals that list what does exist (error rule 3).

type Json = Record<string, any>;

const US = '\u001f';
/** A dotted namespace as the catalog's path segment (levels joined by the unit separator). */
export const nsPath = (ns: string) => encodeURIComponent(ns.split('.').join(US));
export const nsName = (levels: string[]) => levels.join('.');

export function catalogTables(catalog: CatalogClient) {
  const namespaces = async (w: VisibleWarehouse, parent: string[] = [], depth = 0): Promise<string[][]> => {
    const out: string[][] = [];
    let pageToken: string | undefined;
    do {
      const qs = new URLSearchParams();
      if (parent.length) qs.set('parent', parent.join(US));
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

  const tablesIn = async (w: VisibleWarehouse, ns: string): Promise<string[]> => {
    const names: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = (await catalog.request(w.id, 'GET', `/namespaces/${nsPath(ns)}/tables${pageToken ? `?pageToken=${encodeURIComponent(pageToken)}` : ''}`))!;
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
