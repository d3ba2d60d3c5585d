import { stopPrivateStack } from '../../scripts/lib/private-stack';

// Set FLOE_E2E_KEEP_LOGS=1 to keep the stack's logs under .data/e2e-*/logs after the run.
export default async function teardown(): Promise<void> {
  const stateFile = process.env.FLOE_E2E_STATE;
  if (stateFile) await stopPrivateStack(stateFile, Boolean(process.env.FLOE_E2E_KEEP_LOGS));
}
