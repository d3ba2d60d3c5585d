// The accounts aggregate (DESIGN.md, Data): the one writer of principals and
// their API keys, memberships, agents and their grants, imported by identity
// and the control plane, which call it in-process inside their own
// transactions; and the access rules that follow from those facts (access/).
export * from './access/context';
export * from './access/require';
export * from './agent-records';
export * from './api-keys';
export * from './grants';
export * from './levels';
export * from './members';
export * from './memberships';
export * from './principals';
