// The catalogs aggregate (DESIGN.md, Data): the warehouses a caller
// sees and how a caller's words name one (visibility over the accounts
// aggregate's access rules), projects, and what an organisation holds.
// Imported by the control plane and identity.
export * from './agents-md-records';
export * from './connection/connection';
export * from './connection/recipes';
export * from './create/catalog-room';
export * from './create/catalog-names';
export * from './create/creation-records';
export * from './create/provisioning';
export * from './create/provisioning-records';
export * from './create/storage-keys';
export * from './create/storage-step';
export * from './create/warehouse-create';
export * from './credentials/catalog-credentials';
export * from './credentials/catalog-tokens';
export * from './credentials/credential-records';
export * from './deletion/restore-records';
export * from './deletion/teardown-records';
export * from './deletion/warehouse-deletion';
export * from './metered-warehouses';
export * from './onboarding/device-catalogs';
export * from './onboarding/onboard';
export * from './onboarding/projects';
export * from './onboarding/signup';
export * from './org-catalogs';
export * from './project-records';
export * from './resolve';
export * from './storage-policies/policy-rollout';
export * from './storage-policies/policy-subjects';
export * from './uploaders/uploader-expiry-records';
export * from './uploaders/uploader-records';
export * from './usage-records';
export * from './warehouses';
