import { workerApp } from '@floe/http';
import { maintenanceWorker } from './deps';
import { startMaintenanceJobs } from './jobs';

// The maintenance worker: table maintenance (snapshot expiry, metadata
// clean-up, orphan removal; compaction and manifest rewrites follow), each
// run recorded and explained (GET /v1/table/maintenance), from a person
// asking, the hourly sweep's rules, or a writer that saw a table cross one.
// BullMQ consumers plus a tiny health server; any number may run: the sweep
// is one scheduler for the cluster, a table's run is keyed by the table and
// holds the table's lock.
const { config, logger, deps } = maintenanceWorker.start();
const jobs = startMaintenanceJobs(deps);

const app = workerApp({ service: 'maintenance-worker', logger, jobs, db: deps.db });

maintenanceWorker.serve(deps, app, {
  port: config.ports.maintenanceHealth,
  details: { sweep_seconds: config.maintenance.sweepSeconds },
  stop: () => jobs.close(),
});
