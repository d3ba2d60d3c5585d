// The catalogs aggregate (DESIGN.md, Data), begun: the warehouses a caller
// sees and how a caller's words name one (visibility over the accounts
// aggregate's access rules), projects, and what an organisation holds.
// Imported by the control plane and identity.
export * from './org-catalogs';
export * from './projects';
export * from './resolve';
export * from './warehouses';
