import { randomBytes, randomUUID } from 'node:crypto';
import type { WarehouseRecord } from '@floe/catalogs';
import { HttpError, createLogger } from '@floe/http';
import { Producers, queueConnection } from '@floe/queues';
import { uploaderUidPrefix } from '@floe/storage';
import { freePort } from '../../../../../scripts/lib/infra';
import { adminStorage } from '../../../../../tests/support/store';
import { throwawayDatabase } from '../../../../../tests/support/throwaway-db';
import { createUploader, type UploaderDeps } from './uploaders';

// Creating an uploader when a step after the storage user fails, against the
// real RGW and Postgres: the policy put refused by the store, the row refused
// by the database. Nothing is left behind: no storage user (so no key), no
// row. And once the row is in, a queue that does not take the expiry job does
// not undo the uploader.

const db = throwawayDatabase('uploaders');
const store = adminStorage();
const logger = createLogger('test', 'warn');
const logged: Array<Record<string, unknown>> = [];
logger.on('data', (info) => logged.push(info));
let producers: Producers;

beforeAll(() => { producers = new Producers(queueConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), `floe-test-uploaders-${randomBytes(4).toString('hex')}:bull`); });
afterAll(() => producers.close());

const deps = (queues = producers): UploaderDeps => ({ prisma: db.prisma(), storage: store, queues, logger });
/** What createUploader reads of a catalog; the blob bucket need not exist (RGW takes a policy for any bucket name). */
const catalog = (blobBucket: string) => ({ id: randomUUID(), name: 'cams', blobBucket }) as WarehouseRecord;
const ask = { name: 'cam', prefix: 'cam/', list: true, expiresAt: null, createdBy: 'p_test' };
const leftBehind = async (w: WarehouseRecord) => ({
  users: await store.listIdentities(uploaderUidPrefix(w.id)),
  rows: (await db.pool().query(`SELECT id FROM uploaders WHERE warehouse_id = $1`, [w.id])).rows,
});
const refusal = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => err);

test('the policy put refused after the user and key were made: 502 storage_error, no user, no key, no row', async () => {
  // A bucket name with ':' makes the policy's resource ARN one RGW cannot parse: it refuses the policy (400), after the user exists.
  const w = catalog(`up-${randomBytes(3).toString('hex')}:x`);
  const err = await refusal(createUploader(deps(), w, ask));
  expect(err).toBeInstanceOf(HttpError);
  expect([(err as HttpError).status, (err as HttpError).code]).toEqual([502, 'storage_error']);
  expect(await leftBehind(w)).toEqual({ users: [], rows: [] });
});

test('the row refused after the identity was made (user, key and policy): the error goes on, no user, no row', async () => {
  const w = catalog(`up-${randomBytes(3).toString('hex')}--blobs`);
  // The database refuses this catalog's row, as a failing insert would.
  await db.pool().query(`
    CREATE FUNCTION refuse_uploader() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
    CREATE TRIGGER refuse_uploader BEFORE INSERT ON uploaders FOR EACH ROW WHEN (NEW.warehouse_id = '${w.id}') EXECUTE FUNCTION refuse_uploader();`);
  try {
    const err = await refusal(createUploader(deps(), w, ask));
    expect(err).not.toBeInstanceOf(HttpError);
    expect(String((err as Error).message)).toContain('refused by the test');
    expect(await leftBehind(w)).toEqual({ users: [], rows: [] });
  } finally {
    await db.pool().query(`DROP TRIGGER refuse_uploader ON uploaders; DROP FUNCTION refuse_uploader();`);
  }
});

test('a queue that does not take the expiry job leaves the uploader made (the expiry sweep expires it)', async () => {
  const w = catalog(`up-${randomBytes(3).toString('hex')}--blobs`);
  // A Redis that is not there, and a connection that neither waits nor retries: the job is refused at once.
  const nowhere = new Producers({ host: '127.0.0.1', port: await freePort(), maxRetriesPerRequest: null, enableOfflineQueue: false, retryStrategy: () => null }, 'nowhere');
  try {
    const made = await createUploader(deps(nowhere), w, { ...ask, expiresAt: new Date(Date.now() + 3600_000) });
    expect(made.row).toMatchObject({ warehouseId: w.id, name: 'cam', status: 'active' });
    const left = await leftBehind(w);
    expect(left).toEqual({ users: [made.row.iamUser], rows: [{ id: made.row.id }] });
    expect(logged.map((l) => [l.level, l.message, l.uploader_id])).toContainEqual(['warn', 'an uploader\'s expiry job was not queued; the expiry sweep expires it', made.row.id]);
  } finally {
    await nowhere.close();
    for (const uid of await store.listIdentities(uploaderUidPrefix(w.id))) await store.revokeUploader(uid);
  }
});
