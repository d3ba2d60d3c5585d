import { freePort } from '../../scripts/lib/infra';
import { startShiftedRgw, stopShiftedRgw } from '../../scripts/lib/ceph';
import { startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';

// For fault tests of a storage outage: a private stack whose object store is
// a second radosgw (same cluster, own port) that the test stops and starts,
// so nothing else loses its store. Registers the suite's beforeAll/afterAll.

export interface OutageStack {
  state(): StackState;
  stopStore(): Promise<void>;
  startStore(): Promise<void>;
}

export function outageStack(label: string): OutageStack {
  let port: number;
  let stateFile: string | undefined;
  let state: StackState | undefined;
  beforeAll(async () => {
    port = await freePort();
    const endpoint = await startShiftedRgw(port, 0);
    ({ state, stateFile } = await startPrivateStack(label, { FLOE_S3_URL: endpoint, FLOE_LOG_LEVEL: 'warn' }));
  }, 120_000);
  afterAll(async () => {
    if (stateFile) await stopPrivateStack(stateFile);
    await stopShiftedRgw(port).catch(() => undefined);
  }, 120_000);
  return {
    state: () => state!,
    stopStore: () => stopShiftedRgw(port),
    startStore: async () => { await startShiftedRgw(port, 0); },
  };
}
