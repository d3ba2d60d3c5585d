export * from './api-key';
export * from './authenticate';
export * from './credential-cache';
export * from './key-set';
export * from './token-claims';
export * from './wrong-secret-limiter';
export * from './send-key';
export * from './device-token';
