import { z } from 'zod';
import { defineJob } from './job';

// The `credentials` queue: after a rotate the old read-only catalog
// credential keeps working for a few seconds so readers can switch; then a
// `retire` job (queued by the control plane, consumed by the teardown worker)
// revokes it and audits `warehouse.rotate_complete`.

export const CREDENTIALS_QUEUE = 'credentials';

/** Retire a rotated-out read-only catalog credential (and audit `warehouse.rotate_complete`). */
export const RetireCredentialJob = z.object({
  warehouse_id: z.string(),
  client_id: z.string(),
  rotated_by: z.string().nullable(),
  org_id: z.string().nullable(),
  request_id: z.string().nullable(),
});
export type RetireCredentialJob = z.infer<typeof RetireCredentialJob>;

/** How long after a rotate the old read-only key is retired. */
export const RO_RETIREMENT_DELAY_SECONDS = 10;

export const credentialJobs = {
  /** The job id is the client id: a retried rotate queues one retirement. */
  retire: defineJob({
    queue: CREDENTIALS_QUEUE, name: 'retire', payload: RetireCredentialJob,
    options: { delay: RO_RETIREMENT_DELAY_SECONDS * 1000, attempts: 10, backoff: { type: 'exponential', delay: 2000 } },
    jobId: (p) => `retire-${p.client_id}`,
  }),
};
