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
  { name: 'identity', entry: 'services/identity/src/main.ts', port: (c) => c.ports.identity, health: '/healthz' },
  { name: 'catalog', entry: 'services/catalog/src/main.ts', port: (c) => c.ports.catalog, health: '/healthz' },
  { name: 'control-plane', entry: 'services/control-plane/src/main.ts', port: (c) => c.ports.controlPlane, health: '/healthz' },
  { name: 'ingest-gateway', entry: 'services/ingest-gateway/src/main.ts', port: (c) => c.ports.ingest, health: '/healthz' },
  { name: 'mcp-server', entry: 'services/mcp-server/src/main.ts', port: (c) => c.ports.mcp, health: '/healthz' },
  { name: 'roller-worker', entry: 'services/roller-worker/src/main.ts', port: (c) => c.ports.rollerHealth, health: '/healthz' },
  { name: 'metering-worker', entry: 'services/metering-worker/src/main.ts', port: (c) => c.ports.meteringHealth, health: '/healthz' },
  { name: 'maintenance-worker', entry: 'services/maintenance-worker/src/main.ts', port: (c) => c.ports.maintenanceHealth, health: '/healthz' },
  { name: 'teardown-worker', entry: 'services/teardown-worker/src/main.ts', port: (c) => c.ports.teardownHealth, health: '/healthz' },
  // The gateway's /healthz is answered through identity, so it passes only when routing works end to end.
  { name: 'gateway', entry: 'services/gateway/src/main.ts', port: (c) => c.ports.gateway, health: '/healthz' },
];
