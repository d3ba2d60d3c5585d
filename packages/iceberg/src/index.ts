// The single implementation of Iceberg table metadata and its update and
// requirement engine (metadata/), and of data and manifest files (files/,
// under `files` until its type names are unified with metadata's).
export * from './metadata/index';
export * as files from './files/index';
