import { startPrivateStack } from '../../scripts/lib/private-stack';

// The end-to-end project runs against a private stack; workers find it via FLOE_E2E_STATE.
export default async function setup(): Promise<void> {
  process.stdout.write('\n[e2e] starting a private stack\n');
  const { stateFile } = await startPrivateStack('e2e', {
    FLOE_SIGNER_CACHE_SECONDS: '1', FLOE_LOG_LEVEL: 'info',
    // The metering sweep (hourly) and a new catalog's first sample (120 s), shortened for tests/e2e/metering.test.ts.
    FLOE_METERING_SWEEP_SECONDS: '20', FLOE_METERING_FIRST_SAMPLE_SECONDS: '4',
  });
  process.env.FLOE_E2E_STATE = stateFile;
}
