export * from './operation';
export * from './errors';
export * from './security';
export * from './shapes';
export { API_TITLE, API_VERSION, allOperations, apiDocument } from './document';
export type { Resource } from './resources';
// Each resource's request schemas, which the services parse with (one home per contract).
export * from './resources/access';
export * from './resources/account';
export * from './resources/api-keys';
export * from './resources/catalogs';
export * from './resources/organisations';
export * from './resources/passkeys';
export * from './resources/provider-sign-in';
export * from './resources/query';
export * from './resources/second-factor';
export * from './resources/sinks-usage';
export * from './resources/tables-files';
