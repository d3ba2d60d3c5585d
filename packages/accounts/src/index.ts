// The accounts aggregate (DESIGN.md, Data): the one writer of principals and
// their API keys, imported by identity and the control plane, which call it
// in-process inside their own transactions.
export * from './api-keys';
export * from './principals';
