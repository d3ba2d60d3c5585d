export * from './admin-ops';
export * from './clients';
export * from './errors';
export * from './lifecycle';
export * from './policies';
export * from './provider';
export * from './rgw-provider';
export * from './bucket-names';
