// Table maintenance planners: pure decisions over table metadata and manifests, for the
// maintenance worker to commit through the catalog and act on. No I/O but the injected
// `read` of manifest lists and manifests.
export {
  planSnapshotExpiry,
  type ExpiryOptions,
  type ExpiryPlan,
  type ExpiredSnapshot,
  type RetainedSnapshot,
  type RemovedRef,
} from './expiry';
export {
  tableRetention,
  MAX_SNAPSHOT_AGE_PROPERTY,
  MIN_SNAPSHOTS_TO_KEEP_PROPERTY,
  MAX_REF_AGE_PROPERTY,
  type ExpiryDefaults,
  type RetentionPolicy,
} from './retention';
export { positiveInt, positiveLong } from './retention';
export {
  collectSnapshotFiles,
  unreachableFiles,
  snapshotPaths,
  type CollectOptions,
  type CollectedManifest,
  type FileRef,
  type SnapshotFiles,
  type UnreachableFiles,
} from './reachability';
export { liveFiles, planOrphans, type ListedFile, type LiveFileOptions, type OrphanInput, type OrphanPlan } from './orphans';
export { danglingAfterRewrite, deletesForGroup, isDeletionVector, referencedDataFile, DELETE_FILE_PATH_FIELD_ID, type GroupDeletes, type ScopedFile } from './delete-scope';
export { planBinPack, type BinPackEntry, type BinPackGroup, type BinPackOptions, type BinPackPlan, type PartitionFiles } from './bin-pack';
export {
  planManifestMerge,
  type ManifestMergeGroup,
  type ManifestMergeOptions,
  type ManifestMergePlan,
} from './manifest-merge';
export { formatDuration, formatMegabytes, partitionLabel } from './words';
export { tableFigures, type TableFigures } from './figures';
