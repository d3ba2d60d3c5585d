// Scan planning (spec "Scan Planning"): pruning data files by a filter's
// bounds, the REST catalog's filter expressions bound to a schema, and the
// file scan tasks with the deletes that apply to each, in the REST shapes.
export { BOUND_KINDS, filesMayPass, manifestMayPass, type Bound, type BoundKind, type BoundValue } from './prune.js';
export { FieldResolver, ScanInputError, bindFilter, type BoundFilter } from './filter.js';
export { scanTasks, scanTasksJson, type ScanTask, type ScanTasksJson, type TaskJsonOptions } from './tasks.js';
export { toJsonValue } from './json-values.js';
