// @floe/engine: the data-plane engine (DuckDB, locked down) that reads and
// writes Parquet with Iceberg field ids for compaction and the roller, later
// the query route. docs/engine.md says what it does and does not do yet.
export type { Engine, EngineOptions } from './engine.js';
export { openEngine } from './engine.js';
export { engineHandle, type EngineHandle } from './engine-handle.js';
export type { DataFileInput, RewriteRequest, RewrittenFile } from './rewrite.js';
export type { EqualityDeleteInput, PositionDeleteInput } from './deletes.js';
export type { Row } from './rows.js';
export type { NdjsonFile, NdjsonLoad, NdjsonLoadRequest, ParquetOut } from './ndjson-load.js';
export { UNREAD } from './ndjson-read.js';
export { UnsupportedSchemaError } from './columns.js';
export { LAST_UPDATED_SEQUENCE_NUMBER_FIELD_ID, ROW_ID_FIELD_ID } from './lineage.js';
