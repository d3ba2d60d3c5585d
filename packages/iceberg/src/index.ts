// The single implementation of Iceberg table metadata and its update and
// requirement engine (metadata/), view metadata (views/), and data and
// manifest files (files/). One flat namespace: files/ builds on metadata's
// schema, spec, snapshot and JSON types rather than declaring its own.
export * from './metadata/index';
export * from './views/index';
export * from './files/index';
export * from './maintenance/index';
