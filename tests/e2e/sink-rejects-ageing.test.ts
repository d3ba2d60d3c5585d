import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import pg from 'pg';
import request from 'supertest';
import { prismaOver } from '@floe/db';
import { createLogger } from '@floe/http';
import { rejectsPrefix } from '../../packages/ingest/src/sink-layout';
import { sinksWithRejects } from '../../packages/ingest/src/ledger-store';
import { ageOutAllRejects, ageOutRejects } from '../../services/roller-worker/src/reject-ageing';
import { stackKeyring } from '../support/keyring';
import { until } from '../support/poll';
import { adminStorage } from '../support/store';
import { bearer, gateway, uniq } from './control-plane-helpers';
import { stack } from './helpers';
import { blobReader } from './sink-objects';
import { sinkSetup } from './sink-helpers';

// Reject files age out after 7 days (spec: Limits) even for a sink that never
// rolls again: the roller's hourly sweep takes every sink that wrote one,
// deleted ones too; its deletion is run for this sink with a clock eight
// days ahead (the store's own dates cannot be set back).

const DAY_MS = 86_400_000;

test('the sweep removes a deleted sink\'s reject files once they are 7 days old, and nothing younger', async () => {
  const s = await sinkSetup();
  const sink = (await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `a${uniq()}`, table: 'events.clicks', warehouse: s.w.name, inactivity_seconds: 1 })).body;
  await request(stack().base_url).post(`/v1/sinks/${sink.sink_id}`).set(bearer(sink.send_key)).set('Content-Type', 'application/json')
    .set('Idempotency-Key', 'a').send('[{"id":1},{"msg":"no id"}]').expect(202);
  const rolled = await until('the roll', async () => {
    const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key));
    return got.body.lag.batches_waiting === 0 && got.body.last_roll ? got.body : null;
  });
  expect(rolled.rejects).toMatchObject({ rows: 1, files: 1 });
  // The sink goes: it will never roll again, and its reject file stays behind.
  expect((await gateway().delete(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key))).status).toBe(202);

  const s3 = await blobReader(s.w.warehouse_id);
  const rejects = async () => (await s3.send(new ListObjectsV2Command({ Bucket: s.w.blob_bucket, Prefix: rolled.rejects.prefix }))).Contents ?? [];
  expect(await rejects()).toHaveLength(1);

  const pool = new pg.Pool({ connectionString: stack().database_url, max: 2 });
  const prisma = prismaOver(pool);
  try {
    // The sweep takes the deleted sink, with where its catalog keeps the files.
    const swept = (await sinksWithRejects(prisma)).find((x) => x.sinkId === sink.sink_id);
    expect(swept).toMatchObject({ blobBucket: s.w.blob_bucket });
    const d = { prisma, storage: adminStorage(), keyring: stackKeyring(stack()), logger: createLogger('rejects-ageing-test', 'error') };
    await ageOutAllRejects(d);
    expect(await rejects()).toHaveLength(1); // a day old at most: kept
    // Eight days on, as the sweep does it for this sink (the whole sweep, run ahead, would take other tests' files too).
    const as = { accessKeyId: swept!.accessKeyId, secretAccessKey: stackKeyring(stack()).open(swept!.sealedSecretKey) };
    expect(await ageOutRejects(adminStorage(), as, swept!.blobBucket, rejectsPrefix(sink.sink_id), Date.now() + 8 * DAY_MS)).toBe(1);
    expect(await rejects()).toEqual([]);
  } finally {
    await prisma.$disconnect();
    await pool.end();
  }
}, 90_000);
