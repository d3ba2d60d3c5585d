// Floe's Iceberg data and manifest files: the one implementation used by the
// ingest roller (appends) and the catalog (row counting, purge). Schemas, specs,
// snapshots, primitive types and JSON are ../metadata's; only file-specific
// helpers are exported here.
export { decimalRequiredBytes, partitionResultType, partitionType, requirePrimitive } from './types.js';
export type { IcebergValue } from './values.js';
export {
  compareValues, fromBinary, toBinary, toInternal, truncateBinaryLower, truncateBinaryUpper, truncateStringLower, truncateStringUpper,
} from './values.js';
export { conformValue } from './nested-values.js';
export type { AvroCodec, AvroContainer } from './avro.js';
export { avroType, bigintLongType, readAvroContainer, readAvroHeader, writeAvroContainer } from './avro.js';
export type { PartitionData } from './partition.js';
export { partitionKey } from './partition.js';
export type {
  DataFile, ManifestContentName, ManifestEntry, ManifestMetadata, ReadManifest, WriteManifestOptions, WrittenManifest,
} from './manifest.js';
export { EntryStatus, FileContent, manifestEntryAvroSchema, readManifest, writeManifest } from './manifest.js';
export type { FieldSummary, ManifestFile, ReadManifestList, WriteManifestListOptions, WrittenManifestList } from './manifest-list.js';
export { ManifestContent, manifestFileAvroSchema, readManifestList, writeManifestList } from './manifest-list.js';
export type { DataFileStats, ParquetCodec, WriteParquetOptions, WrittenParquet } from './parquet.js';
export { emptyStats, parquetDataFile, writeParquetDataFile } from './parquet.js';
export type { ReadFile, RowCount, RowsSource, SnapshotLike } from './row-count.js';
export { countRows } from './row-count.js';
export type { AppendOptions, AppendResult, AppendSnapshot } from './append.js';
export { buildAppend, listTotals } from './append.js';
export type { ReplaceOptions, ReplaceResult } from './replace.js';
export { StaleReplace, buildReplace } from './replace.js';
export { InvalidDeletionVector, readDeletionVector, writeDeletionVector } from './deletion-vector.js';
export { READS_AT_ONCE, mapLimited } from './map-limited.js';
export type { LiveFile, LiveFiles, ReadObject, SnapshotManifests } from './live-files.js';
export { liveFilesOf, readLiveFiles, readSnapshotManifests } from './live-files.js';
