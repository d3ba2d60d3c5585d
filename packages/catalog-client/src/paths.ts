// The catalog's REST path grammar, in one place: `/v1/{prefix}/namespaces/{ns}/tables/{table}`,
// where the prefix is the warehouse id and a namespace's levels are joined by
// the unit separator (U+001F) and percent-encoded as one path segment.

/** The separator of a namespace's levels in a path segment (and in the catalog's `parent` query). */
export const NAMESPACE_SEPARATOR = '\u001f';

/** A table as the catalog names it: its namespace's levels and its name. */
export interface TableIdent {
  namespace: string[];
  name: string;
}

/** A dotted namespace, as Floe's own callers write it (`a.b`), as its levels. */
export const dottedLevels = (namespace: string): string[] => namespace.split('.');

/** The catalog's prefix of one warehouse: every path below is under it. */
export const warehousePrefix = (warehouseId: string): string => `/v1/${encodeURIComponent(warehouseId)}`;

/** A namespace's levels as one path segment. */
export const namespaceSegment = (levels: string[]): string => encodeURIComponent(levels.join(NAMESPACE_SEPARATOR));

/** `/namespaces/{ns}` under a warehouse's prefix. */
export const namespacePath = (levels: string[]): string => `/namespaces/${namespaceSegment(levels)}`;

/** `/namespaces/{ns}/tables`: list or create. */
export const tablesPath = (levels: string[]): string => `${namespacePath(levels)}/tables`;

/** `/namespaces/{ns}/tables/{table}`: load or commit. */
export const tablePath = (t: TableIdent): string => `${tablesPath(t.namespace)}/${encodeURIComponent(t.name)}`;
