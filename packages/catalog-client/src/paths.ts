import { joinNamespace, namespacePathSegment } from '@floe/iceberg';

// The catalog's REST path grammar, in one place: `/v1/{prefix}/namespaces/{ns}/tables/{table}`,
// where the prefix is the warehouse id and a namespace is one path segment
// (its levels joined by U+001F: @floe/iceberg's namespace.ts).

/** A table as the catalog names it: its namespace's levels and its name. */
export interface TableIdent {
  namespace: string[];
  name: string;
}

/** A dotted namespace, as Floe's own callers write it (`a.b`), as its levels. */
export const dottedLevels = (namespace: string): string[] => namespace.split('.');

/** The catalog's prefix of one warehouse: every path below is under it. */
export const warehousePrefix = (warehouseId: string): string => `/v1/${encodeURIComponent(warehouseId)}`;

/** `?…` of the parameters that are set, or nothing. */
function query(params: Record<string, string | undefined>): string {
  const set = new URLSearchParams(Object.entries(params).filter((p): p is [string, string] => p[1] !== undefined && p[1] !== ''));
  return set.size ? `?${set}` : '';
}

/** `/namespaces`: create, or list the children of `parent` (the top level when empty) from `pageToken`. */
export const namespacesPath = (list: { parent?: string[]; pageToken?: string } = {}): string =>
  `/namespaces${query({ parent: list.parent?.length ? joinNamespace(list.parent) : undefined, pageToken: list.pageToken })}`;

/** `/namespaces/{ns}`: exists (HEAD) or drop. */
export const namespacePath = (levels: string[]): string => `/namespaces/${namespacePathSegment(levels)}`;

/** `/namespaces/{ns}/tables`: create, or list from `pageToken`. */
export const tablesPath = (levels: string[], list: { pageToken?: string } = {}): string =>
  `${namespacePath(levels)}/tables${query({ pageToken: list.pageToken })}`;

/** `/namespaces/{ns}/tables/{table}`: load, commit, or drop (with `purgeRequested`, its files too). */
export const tablePath = (t: TableIdent, drop: { purgeRequested?: boolean } = {}): string =>
  `${tablesPath(t.namespace)}/${encodeURIComponent(t.name)}${query({ purgeRequested: drop.purgeRequested ? 'true' : undefined })}`;
