// The accounts aggregate (DESIGN.md, Data): the one writer of principals and
// their API keys, memberships, agents and their grants, imported by identity
// and the control plane, which call it in-process inside their own
// transactions; and the access rules that follow from those facts (access/).
export * from './access/context';
export * from './access/require';
export * from './agent-records';
export * from './agents/agent-changes';
export * from './agents/agent-grants';
export * from './agents/agent-view';
export * from './agents/agents';
export * from './agents/approved';
export * from './api-keys';
export * from './disposable-addresses';
export * from './domain-records';
export * from './grants';
export * from './invitation-records';
export * from './levels';
export * from './members';
export * from './memberships';
export * from './organization-records';
export * from './orgs/domain-dns';
export * from './orgs/domains';
export * from './orgs/handles';
export * from './orgs/invitations';
export * from './orgs/org-policy';
export * from './orgs/organizations';
export * from './orgs/orgs';
export * from './principals';
