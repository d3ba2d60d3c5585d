// The properties Floe gives every table it creates or maintains, where the
// table does not set them itself: Iceberg's own metadata clean-up at commit —
// the previous metadata file is deleted once more than
// `write.metadata.previous-versions-max` are logged — so a table committed
// every minute keeps 20 metadata files, not thousands. The catalog adds them
// at create, a sink's first roll and the maintenance worker's clean_metadata
// run to older tables.

export const METADATA_RETENTION_PROPERTIES: Readonly<Record<string, string>> = {
  'write.metadata.delete-after-commit.enabled': 'true',
  'write.metadata.previous-versions-max': '20',
};
