import type { FloeConfig } from '@floe/config';

/** Every deployable the stack runs, in start order, with where its health answers. */
export interface Deployable {
  name: string;
  entry: string;
  port: (c: FloeConfig) => number;
  health: string;
  /** Whether this stack runs it (default: always). */
  runs?: (c: FloeConfig) => boolean;
}

export const DEPLOYABLES: Deployable[] = [
  // Not Floe's code: the development mail server (maildev) that identity sends to on local stacks.
  { name: 'mail', entry: 'infra/mail/dev-mail-server.ts', port: (c) => c.ports.mailWeb, health: '/api/healthz', runs: (c) => c.mail.devServer },
  // Not Floe's code either: the development OpenID Connect provider (oidc-provider), a sign-in provider and trusted issuer of local stacks.
  { name: 'identity-provider', entry: 'infra/identity-provider/dev-identity-provider.ts', port: (c) => c.ports.devIdp, health: '/healthz', runs: (c) => c.devIdentityProvider !== null },
  // The catalog first: identity's health (the spec's liveness) includes the catalog answering its config route.
  { name: 'catalog', entry: 'services/catalog/src/main.ts', port: (c) => c.ports.catalog, health: '/healthz' },
  { name: 'identity', entry: 'services/identity/src/main.ts', port: (c) => c.ports.identity, health: '/healthz' },
  { name: 'control-plane', entry: 'services/control-plane/src/main.ts', port: (c) => c.ports.controlPlane, health: '/healthz' },
  { name: 'ingest-gateway', entry: 'services/ingest-gateway/src/main.ts', port: (c) => c.ports.ingest, health: '/healthz' },
  { name: 'mcp-server', entry: 'services/mcp-server/src/main.ts', port: (c) => c.ports.mcp, health: '/healthz' },
  { name: 'roller-worker', entry: 'services/roller-worker/src/main.ts', port: (c) => c.ports.rollerHealth, health: '/healthz' },
  { name: 'metering-worker', entry: 'services/metering-worker/src/main.ts', port: (c) => c.ports.meteringHealth, health: '/healthz' },
  { name: 'maintenance-worker', entry: 'services/maintenance-worker/src/main.ts', port: (c) => c.ports.maintenanceHealth, health: '/healthz' },
  { name: 'query-worker', entry: 'services/query-worker/src/main.ts', port: (c) => c.ports.queryHealth, health: '/healthz' },
  { name: 'teardown-worker', entry: 'services/teardown-worker/src/main.ts', port: (c) => c.ports.teardownHealth, health: '/healthz' },
  // The gateway's /healthz is answered through identity, so it passes only when routing works end to end.
  { name: 'gateway', entry: 'services/gateway/src/main.ts', port: (c) => c.ports.gateway, health: '/healthz' },
];

/**
 * A stack with two processes of each Floe deployable but the gateway
 * (scripts/lib/private-stack.ts, `replicas: 2`): what the second processes
 * run with, and the balancers in front of the public hosts the gateway does
 * not route (the catalog and the ingest host).
 */
export interface ReplicaPlan {
  /** Per deployable, the settings of its second process over the stack's: its own ports. */
  second: Record<string, NodeJS.ProcessEnv>;
  /** Each balancer starts once the replicas of deployable `after` answer. */
  balancers: Array<{ name: string; after: string; port: number; targets: string[] }>;
}

/** Not Floe's code: the round-robin balancer of a replica stack (its port and targets come from the plan). */
export const BALANCER: Deployable = { name: 'balancer', entry: 'infra/balancer/balancer.ts', port: () => 0, health: '/healthz' };
