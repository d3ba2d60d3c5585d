// Iceberg view metadata (view spec format v1): model, creation, commit checks, updates.

export {
  VIEW_FORMAT_VERSION,
  SUPPORTED_VIEW_FORMAT_VERSIONS,
  VIEW_METADATA_KEY_ORDER,
  ViewMetadataSchema,
  ViewVersionSchema,
  ViewRepresentationSchema,
  ViewHistoryEntrySchema,
  ViewUpdateSchema,
  ViewRequirementSchema,
  parseViewMetadata,
  toViewMetadata,
  serializeViewMetadata,
  parseViewUpdates,
  parseViewRequirements,
  parseViewVersion,
  type ViewFormatVersion,
  type ViewMetadata,
  type ViewVersion,
  type ViewRepresentation,
  type ViewHistoryEntry,
  type ViewUpdate,
  type ViewUpdateAction,
  type ViewUpdateOf,
  type ViewRequirement,
} from './model';
export { newViewMetadata, type NewViewOptions } from './new-view';
export {
  applyViewUpdates,
  checkViewRequirements,
  LAST_ADDED,
  VERSION_HISTORY_SIZE_PROPERTY,
  VERSION_HISTORY_SIZE_DEFAULT,
  REPLACE_DROP_DIALECT_ALLOWED_PROPERTY,
  type ApplyViewOptions,
  type ViewRequirementFailure,
} from './updates';
