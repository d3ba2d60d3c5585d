// @floe/engine: the data-plane engine (DuckDB, locked down) that reads and
// writes Parquet with Iceberg field ids for compaction and the roller, and
// runs a caller's read-only statement in a sandbox of its own (query.ts).
// docs/engine.md says what it does and does not do yet.
export type { Engine, EngineOptions } from './engine.js';
export { openEngine } from './engine.js';
export {
  QueryRefused, QueryTimedOut, QueryTooLarge, readOnlyStatement, runReadOnlyStatement,
  type QueryResult, type ReadOnlyStatement, type RunRequest, type TableName, type TablePart, type TableView,
} from './query.js';
export type { ColumnPredicate, PredicateOp } from './predicates.js';
export { engineHandle, type EngineHandle } from './engine-handle.js';
export { literal as sqlLiteral } from './sql.js';
export type { DataFileInput, RewriteRequest, RewrittenFile } from './rewrite.js';
export type { EqualityDeleteInput, PositionDeleteInput } from './deletes.js';
export type { Row } from './rows.js';
export type { NdjsonFile, NdjsonLoad, NdjsonLoadRequest, ParquetOut } from './ndjson-load.js';
export { UNREAD } from './ndjson-read.js';
export { UnsupportedSchemaError } from './columns.js';
export { LAST_UPDATED_SEQUENCE_NUMBER_FIELD_ID, ROW_ID_FIELD_ID } from './lineage.js';
