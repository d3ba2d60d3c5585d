export * from './batch';
export * from './rows';
export * from './device-body';
export * from './device-options';
export * from './device-request';
export * from './sink-layout';
export * from './sink-table';
