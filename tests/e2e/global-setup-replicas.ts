import { startE2eStack } from './global-setup';

// The e2e-replicas project (jest.config.mjs): the e2e stack's settings, two
// processes of every Floe deployable but the gateway, which spreads its
// requests across them (balancers do for {catalog_url} and {ingest_url}).
// The teardown is the e2e project's (FLOE_E2E_STATE).
export default async function setup(): Promise<void> {
  await startE2eStack('e2e-replicas', { replicas: 2 });
}
