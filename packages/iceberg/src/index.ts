// The single implementation of Iceberg table metadata and its update and
// requirement engine (metadata/), view metadata (views/), function (UDF) metadata (functions/), data and manifest
// files (files/), scan planning (scan/), and a namespace's levels as one string (namespace.ts). One
// flat namespace: files/ builds on metadata's schema, spec, snapshot and JSON
// types rather than declaring its own.
export * from './metadata/index';
export * from './views/index';
export * from './files/index';
export * from './maintenance/index';
export * from './scan/index';
export * from './functions/index';
export * from './namespace';
