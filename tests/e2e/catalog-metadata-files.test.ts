import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { adminStorage } from '../support/store';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { catalog } from './catalog-helpers';
import { bearer, stack } from './helpers';

// write.metadata.previous-versions-max bounds the metadata-log;
// write.metadata.delete-after-commit.enabled removes the files that fall off it.

let wh: TestWarehouse;
let rw: string;
const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] };

beforeAll(async () => {
  wh = await createTestWarehouse(stack());
  rw = (await catalog().post('/v1/oauth/tokens').type('form').send({ grant_type: 'client_credentials', client_id: wh.rw.clientId, client_secret: wh.rw.clientSecret })).body.access_token;
  await catalog().post(`/v1/${wh.id}/namespaces`).set(bearer(rw)).send({ namespace: ['m'] }).expect(200);
}, 60_000);

afterAll(async () => {
  await removeTestWarehouse(wh);
}, 60_000);

async function metadataFiles(location: string): Promise<string[]> {
  const prefix = `${location.slice(`s3://${wh.tableBucket}/`.length)}/metadata/`;
  const out = await adminStorage().s3.send(new ListObjectsV2Command({ Bucket: wh.tableBucket, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key!).filter((k) => k.endsWith('.metadata.json')).sort();
}

async function commitTimes(name: string, n: number): Promise<string> {
  let last = '';
  for (let i = 0; i < n; i++) {
    const res = await catalog().post(`/v1/${wh.id}/namespaces/m/tables/${name}`).set(bearer(rw))
      .send({ requirements: [], updates: [{ action: 'set-properties', updates: { round: String(i) } }] });
    expect(res.status).toBe(200);
    last = res.body['metadata-location'];
  }
  return last;
}

test('with delete-after-commit, only the current file and the logged previous ones remain', async () => {
  const created = await catalog().post(`/v1/${wh.id}/namespaces/m/tables`).set(bearer(rw)).send({
    name: 'tidy', schema, properties: { 'write.metadata.delete-after-commit.enabled': 'true', 'write.metadata.previous-versions-max': '2' },
  }).expect(200);
  const location = created.body.metadata.location;
  const current = await commitTimes('tidy', 4);
  const loaded = (await catalog().get(`/v1/${wh.id}/namespaces/m/tables/tidy`).set(bearer(rw))).body;
  expect(loaded['metadata-location']).toBe(current);
  const logged = loaded.metadata['metadata-log'].map((e: { 'metadata-file': string }) => e['metadata-file']);
  expect(logged).toHaveLength(2);
  const expected = [...logged, current].map((l: string) => l.slice(`s3://${wh.tableBucket}/`.length)).sort();
  expect(await metadataFiles(location)).toEqual(expected);
});

test('switched off, every metadata file stays while the log is still bounded (the catalog turns it on for a table that does not say)', async () => {
  const created = await catalog().post(`/v1/${wh.id}/namespaces/m/tables`).set(bearer(rw)).send({
    name: 'keep', schema, properties: { 'write.metadata.previous-versions-max': '1', 'write.metadata.delete-after-commit.enabled': 'false' },
  }).expect(200);
  await commitTimes('keep', 3);
  const loaded = (await catalog().get(`/v1/${wh.id}/namespaces/m/tables/keep`).set(bearer(rw))).body;
  expect(loaded.metadata['metadata-log']).toHaveLength(1);
  expect(await metadataFiles(created.body.metadata.location)).toHaveLength(4);
});
