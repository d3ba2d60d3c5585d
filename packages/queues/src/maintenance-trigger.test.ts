import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { METADATA_RETENTION_PROPERTIES, newTableMetadata, type TableMetadata } from '@floe/iceberg';
import { MaintenanceJob, Producers, QUEUES, maintenanceJobId, queueConnection } from './index';
import { MaintenanceOnCommit } from './maintenance-trigger';

// A commit that leaves its table past a rule queues one maintenance run for
// it, keyed by the table (real Redis, BullMQ's own queue); the commits after
// it join that run; a table within the rules queues nothing.

const connection = queueConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `floe-test-trigger-${randomBytes(4).toString('hex')}:bull`;
const producers = new Producers(connection, prefix);
const queue = new Queue(QUEUES.maintenance, { connection, prefix });
const logger = { warn: () => undefined };

afterAll(async () => {
  await producers.close();
  await queue.close();
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
});

function table(snapshots: number): TableMetadata {
  const m = newTableMetadata({ location: 's3://b/t', schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] }, properties: { ...METADATA_RETENTION_PROPERTIES } });
  m.snapshots = Array.from({ length: snapshots }, (_, i) => ({
    'snapshot-id': BigInt(i + 1), 'sequence-number': BigInt(i + 1), 'timestamp-ms': BigInt(Date.now() + i), 'manifest-list': `s3://b/t/metadata/snap-${i + 1}.avro`,
    summary: { operation: 'append', 'floe.sink-id': 'snk_trigger' },
  }));
  m['current-snapshot-id'] = BigInt(snapshots);
  return m;
}

const at = (metadata: TableMetadata) => ({ warehouseId: 'w-trigger', namespace: ['events'], name: 'clicks', metadata });

test('past the rule: one run queued for the table, joined by the next commits; within it: nothing', async () => {
  const judge = new MaintenanceOnCommit({ producers, logger });
  const now = Date.now();
  expect(await judge.afterCommit(at(table(25)), now)).toBe(false);
  expect(await judge.afterCommit(at(table(26)), now)).toBe(true);
  expect(await judge.afterCommit(at(table(27)), now + 1)).toBe(true);
  const jobs = await queue.getJobs(['waiting', 'delayed', 'prioritized']);
  expect(jobs.map((j) => j.id)).toEqual([maintenanceJobId('w-trigger', ['events'], 'clicks')]);
  expect(MaintenanceJob.parse(jobs[0].data)).toEqual({
    warehouse_id: 'w-trigger', namespace: ['events'], table: 'clicks', kinds: ['expire_snapshots'], requested_by: null,
    trigger: { type: 'rule', detail: "expire_snapshots: 26 snapshots, more than 20 kept (seen at a commit by sink snk_trigger's roll)" },
  });
});
