import { startPrivateStack, type PrivateStackOptions } from '../../scripts/lib/private-stack';

// The end-to-end project runs against a private stack; workers find it via FLOE_E2E_STATE.
export default async function setup(): Promise<void> {
  await startE2eStack('e2e');
}

/** The e2e stack's settings; the e2e-replicas project (global-setup-replicas.ts) starts it with two of each deployable. */
export async function startE2eStack(label: string, opts: PrivateStackOptions = {}): Promise<void> {
  process.stdout.write(`\n[${label}] starting a private stack${opts.replicas === 2 ? ' with two replicas of each deployable' : ''}\n`);
  // A deleted catalog stays restorable for 10 s here (a day by default), so the deletion tests can both restore and see a teardown;
  // the operator routes are public here (off by default) so their tests reach them through the gateway;
  // the metering sweep (hourly) and a new catalog's first sample (120 s) are shortened for tests/e2e/metering.test.ts;
  // identity fetches OAuth client metadata documents from 127.0.0.77 (any port) past its private-address guard, where
  // tests/e2e/oauth-authorize.test.ts serves them (off by default, refused in production).
  // The budgets per caller address of mailing starts (20 an hour) and pending handle reservations (3) are raised: most
  // files sign people up from 127.0.0.1, far more than a client may; the tests read the stack's numbers from the
  // environment set here (loadConfig()), and signup-email.test.ts reaches them from addresses of its own.
  process.env.FLOE_MAIL_STARTS_PER_CALLER_PER_HOUR = '200';
  process.env.FLOE_PENDING_HANDLES_PER_CALLER = '50';
  const { stateFile } = await startPrivateStack(label, {
    FLOE_SIGNER_CACHE_SECONDS: '1', FLOE_LOG_LEVEL: 'info', FLOE_WAREHOUSE_DELETE_GRACE_SECONDS: '10', FLOE_ADMIN_ROUTES_PUBLIC: 'true',
    FLOE_METERING_SWEEP_SECONDS: '20', FLOE_METERING_FIRST_SAMPLE_SECONDS: '4', FLOE_OAUTH_METADATA_ALLOW_HOSTS: '127.0.0.77',
    FLOE_MAIL_STARTS_PER_CALLER_PER_HOUR: process.env.FLOE_MAIL_STARTS_PER_CALLER_PER_HOUR,
    FLOE_PENDING_HANDLES_PER_CALLER: process.env.FLOE_PENDING_HANDLES_PER_CALLER,
    // Scan planning in the background and in pages, for tables of a handful of files (catalog-scan-planning.test.ts).
    FLOE_SCAN_PLAN_SYNC_FILES: '4', FLOE_SCAN_PLAN_PAGE_TASKS: '2',
  }, opts);
  process.env.FLOE_E2E_STATE = stateFile;
}
