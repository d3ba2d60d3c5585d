// The catalog's client for Floe's own deployables: typed table operations
// (client.ts), the catalog's path grammar (paths.ts), and its table answers
// and vended storage sessions (load-result.ts).
export * from './client';
export * from './load-result';
export * from './paths';
