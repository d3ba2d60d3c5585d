// The single implementation of Iceberg data and manifest files (files/) and,
// once landed, of table metadata and its update/requirement engine (metadata/).
export * from './files/index';
