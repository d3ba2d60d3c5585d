// The catalog's client for Floe's own deployables: typed namespace and table
// operations (client.ts), the catalog's path grammar (paths.ts), its table
// answers and vended storage sessions (load-result.ts), and its other answers
// (responses.ts); a table's files reached through its vended session
// (table-access.ts).
export * from './client';
export * from './load-result';
export * from './paths';
export * from './table-access';
export type { CreateNamespaceResponse, ListNamespacesResponse, ListTablesResponse } from './responses';
