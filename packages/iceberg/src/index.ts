// The single implementation of Iceberg table metadata and its update and
// requirement engine (metadata/), view metadata (views/), and data and
// manifest files (files/, under `files` until its type names are unified
// with metadata's).
export * from './metadata/index';
export * from './views/index';
export * as files from './files/index';
