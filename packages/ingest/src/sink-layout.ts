// Where a sink keeps its objects in the warehouse's blob bucket: one home for
// the `_sink/<sink_id>/…` key layout, written by the ingest gateway (batches),
// the roller (reject files) and shown by the control plane (the prefixes).
// Every key of a sink sits under its prefix, so a sink's objects are listed,
// aged out and granted by that prefix alone. The whole `_sink/` tree is
// Floe's: the control plane's blob routes list it but never write or delete there.

/** Where every sink's objects live in a blob bucket: Floe's own part of it (no uploader, upload or delete reaches in). */
export const SINK_ROOT = '_sink/';

/** Whether a key prefix reaches into `_sink/`: inside it, or covering it (`''`, `_`, `_si`, …). */
export const reachesSinkRoot = (prefix: string): boolean => prefix.startsWith(SINK_ROOT) || SINK_ROOT.startsWith(prefix);

/** All of a sink's objects: `_sink/<sink_id>/`. */
export const sinkPrefix = (sinkId: string): string => `${SINK_ROOT}${sinkId}/`;

/** A received batch's NDJSON: `_sink/<sink_id>/<batch_id>.ndjson`. */
export const batchKey = (sinkId: string, batchId: string): string => `${sinkPrefix(sinkId)}${batchId}.ndjson`;

/** A sink's reject files: `_sink/<sink_id>/_rejects/`. */
export const rejectsPrefix = (sinkId: string): string => `${sinkPrefix(sinkId)}_rejects/`;

/** One roll's reject file, named after its snapshot (or its batches): `_sink/<sink_id>/_rejects/<name>.ndjson`. */
export const rejectKey = (sinkId: string, name: string): string => `${rejectsPrefix(sinkId)}${name}.ndjson`;
