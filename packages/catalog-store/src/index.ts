// The catalog's own rows — catalog_namespaces, catalog_tables (each table's
// and view's metadata pointer and location), catalog_functions and catalog_purges — have their
// one home here: nothing else writes them (docs/architecture.md, "Who writes
// what"). The catalog service reads and writes them through this entry on its
// load, commit, drop and purge paths; the teardown of a deleted catalog drops
// its rows through `@floe/catalog-store/teardown`, inside the teardown's own
// transaction (packages/catalogs).
//
// This entry is raw SQL over pg, for the reasons each file gives (named
// prepared statements on the hot paths, pg's error classes to tell a commit's
// unknown outcome); it loads no Prisma client. It imports nothing of
// packages/catalogs, which depends on it.

export { deleteFunction, getFunction, listFunctions, putFunction } from './functions';
export { overlappingHolder, type LocationHolder } from './locations';
export {
  changeNamespaceProperties, deleteNamespace, getNamespace, insertNamespace, listNamespaces, namespaceContents, type PropertyChange,
} from './namespaces';
export { OutcomeUnknown } from './outcome';
export { claimPurge, dropWithPurge, finishPurge, type PurgeJob } from './purges';
export {
  deleteTable, deleteTableAt, findTable, findTableAtGate, listTables, movePointers, nameTaken, renameTable,
  type MoveRefusal, type PointerMove, type TableRow,
} from './tables';
