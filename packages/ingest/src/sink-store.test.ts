// The sink record's writes against the real Postgres: a throwaway database
// with the real migrations (so the partial unique indexes on live sinks are
// the ones that decide), dropped afterwards.
import { randomBytes } from 'node:crypto';
import { throwawayDatabase } from '@floe/db/throwaway-database';
import {
  changeSinkSettings, clearDeviceToken, DISABLED_BY_USER, endSinksOfWarehouse, insertSink, markSinkDeleted, setDeviceToken, type NewSink,
} from './sink-store';
import { DEFAULT_DEVICE_OPTIONS } from './device-options';

const db = throwawayDatabase('sink_store', 4);

let n = 0;
const newSink = (warehouseId: string, over: Partial<NewSink> = {}): NewSink => {
  n += 1;
  return {
    id: `snk_${n}_${randomBytes(4).toString('hex')}`, name: `sink${n}`, warehouseId, namespace: 'events', tableName: `t${n}`,
    rollSeconds: 300, rollBytes: 64 * 1024 * 1024, inactivitySeconds: null, sendKeyId: `sk_${n}_${randomBytes(4).toString('hex')}`,
    sendKeyHash: 'x', createdBy: 'p_test', ...over,
  };
};
const made = async (warehouseId: string, over: Partial<NewSink> = {}) => {
  const s = newSink(warehouseId, over);
  expect(await insertSink(db.prisma(), s)).toBe(true);
  return s;
};
const sinkRow = (id: string) => db.prisma().sink.findUniqueOrThrow({ where: { id } });
// Batches as the ingest gateway writes them (raw SQL there too).
const batch = (sinkId: string, batchId: string, state = 'pending') =>
  db.prisma().$executeRaw`INSERT INTO sink_batches (sink_id, batch_id, bytes, accepted, rejected, state) VALUES (${sinkId}, ${batchId}, 10, 1, 0, ${state})`;
const batchRow = (sinkId: string, batchId: string) => db.prisma().sinkBatch.findUniqueOrThrow({ where: { sinkId_batchId: { sinkId, batchId } } });

test('a live sink holds its table and its name in the catalog; deleted, it frees both', async () => {
  const first = await made('wh_a', { name: 'orders', tableName: 'orders' });
  expect(Number((await sinkRow(first.id)).rollBytes)).toBe(64 * 1024 * 1024);
  expect(await insertSink(db.prisma(), newSink('wh_a', { tableName: 'orders' }))).toBe(false);
  expect(await insertSink(db.prisma(), newSink('wh_a', { name: 'orders' }))).toBe(false);
  // Another catalog is another place.
  await made('wh_b', { name: 'orders', tableName: 'orders' });
  expect(await markSinkDeleted(db.prisma(), first.id)).toBe(true);
  await made('wh_a', { name: 'orders', tableName: 'orders' });
});

test('a sink is deleted once: a second deletion is refused and the first deletion time kept', async () => {
  const s = await made('wh_c');
  expect(await markSinkDeleted(db.prisma(), s.id)).toBe(true);
  const { deletedAt } = await sinkRow(s.id);
  expect(deletedAt).not.toBeNull();
  expect(await markSinkDeleted(db.prisma(), s.id)).toBe(false);
  expect(await sinkRow(s.id)).toMatchObject({ state: 'deleted', deletedAt });
  expect(await markSinkDeleted(db.prisma(), 'snk_none')).toBe(false);
});

test('a device token is set, replaced and removed once', async () => {
  const s = await made('wh_d');
  const options = { ...DEFAULT_DEVICE_OPTIONS, required_field: 'device', preset_params: {} };
  const at = await setDeviceToken(db.prisma(), s.id, 'hash-1', options);
  expect(await sinkRow(s.id)).toMatchObject({ deviceTokenHash: 'hash-1', deviceTokenAt: at, deviceOptions: { required_field: 'device' } });
  // Inside a transaction too (the grant is made under the scope's lock).
  await db.prisma().$transaction((tx) => setDeviceToken(tx, s.id, 'hash-2', options));
  expect((await sinkRow(s.id)).deviceTokenHash).toBe('hash-2');
  expect(await clearDeviceToken(db.prisma(), s.id)).toBe(true);
  expect(await sinkRow(s.id)).toMatchObject({ deviceTokenHash: null, deviceTokenAt: null, deviceOptions: null });
  expect(await clearDeviceToken(db.prisma(), s.id)).toBe(false);
});

test('a torn-down catalog\'s sinks end: deleted at the given time, their waiting batches discarded, nothing else touched', async () => {
  const live = await made('wh_t');
  const disabled = await made('wh_t');
  await db.prisma().$executeRaw`UPDATE sinks SET state = 'disabled', disabled_reason = 'table_missing' WHERE id = ${disabled.id}`;
  const gone = await made('wh_t');
  await markSinkDeleted(db.prisma(), gone.id);
  const goneAt = (await sinkRow(gone.id)).deletedAt;
  const other = await made('wh_other');
  await batch(live.id, 'b1');
  await batch(live.id, 'b2', 'committed');
  await batch(disabled.id, 'b1');
  await batch(gone.id, 'b1');
  await batch(other.id, 'b1');

  const at = new Date('2030-01-02T03:04:05.678Z');
  const ended = await db.prisma().$transaction((tx) => endSinksOfWarehouse(tx, 'wh_t', at));
  expect(ended).toEqual({ sinksDeleted: 2, batchesDiscarded: 3 });

  expect(await sinkRow(live.id)).toMatchObject({ state: 'deleted', deletedAt: at });
  expect(await sinkRow(disabled.id)).toMatchObject({ state: 'deleted', deletedAt: at, disabledReason: 'table_missing' });
  // An already deleted sink keeps its deletion time; its waiting batches are discarded all the same.
  expect(await sinkRow(gone.id)).toMatchObject({ state: 'deleted', deletedAt: goneAt });
  for (const [sinkId, batchId] of [[live.id, 'b1'], [disabled.id, 'b1'], [gone.id, 'b1']]) {
    expect(await batchRow(sinkId, batchId)).toMatchObject({ state: 'discarded', committedAt: at });
  }
  expect(await batchRow(live.id, 'b2')).toMatchObject({ state: 'committed', committedAt: null });
  expect(await sinkRow(other.id)).toMatchObject({ state: 'active', deletedAt: null });
  expect(await batchRow(other.id, 'b1')).toMatchObject({ state: 'pending', committedAt: null });

  // Again (a teardown retried): nothing left to change.
  expect(await db.prisma().$transaction((tx) => endSinksOfWarehouse(tx, 'wh_t'))).toEqual({ sinksDeleted: 0, batchesDiscarded: 0 });
});

test('ending a catalog\'s sinks is part of the caller\'s transaction: rolled back with it', async () => {
  const s = await made('wh_r');
  await batch(s.id, 'b1');
  await expect(db.prisma().$transaction(async (tx) => {
    await endSinksOfWarehouse(tx, 'wh_r');
    throw new Error('the teardown failed after');
  })).rejects.toThrow('the teardown failed after');
  expect(await sinkRow(s.id)).toMatchObject({ state: 'active', deletedAt: null });
  expect(await batchRow(s.id, 'b1')).toMatchObject({ state: 'pending' });
});

test('settings change all at once; what they replaced is returned; asking what is already so writes nothing', async () => {
  const s = await made('wh_s', { name: 'before' });
  const r = await changeSinkSettings(db.prisma(), s.id, { name: 'after', rollSeconds: 60, rollBytes: 32 * 1024 * 1024, inactivitySeconds: 5, enabled: true }, []);
  expect(r).toEqual({
    outcome: 'changed',
    changed: { name: 'after', rollSeconds: 60, rollBytes: 32 * 1024 * 1024, inactivitySeconds: 5 },
    previous: { name: 'before', rollSeconds: 300, rollBytes: 64 * 1024 * 1024, inactivitySeconds: null },
    name: 'after',
  });
  expect(await sinkRow(s.id)).toMatchObject({ name: 'after', rollSeconds: 60, rollBytes: BigInt(32 * 1024 * 1024), inactivitySeconds: 5, state: 'active' });
  expect(await changeSinkSettings(db.prisma(), s.id, { name: 'after', rollSeconds: 60, enabled: true }, [])).toEqual({ outcome: 'changed', changed: {}, previous: {}, name: 'after' });
  expect(await changeSinkSettings(db.prisma(), s.id, { inactivitySeconds: null }, [])).toEqual({ outcome: 'changed', changed: { inactivitySeconds: null }, previous: { inactivitySeconds: 5 }, name: 'after' });
});

test('disabled by a caller, enabled by one; another reason stays unless it is clearable, and nothing else is written meanwhile', async () => {
  const s = await made('wh_e');
  expect(await changeSinkSettings(db.prisma(), s.id, { enabled: false }, [])).toEqual({
    outcome: 'changed', changed: { enabled: false, disabledReason: DISABLED_BY_USER }, previous: { enabled: true, disabledReason: null }, name: s.name,
  });
  expect(await sinkRow(s.id)).toMatchObject({ state: 'disabled', disabledReason: DISABLED_BY_USER });
  expect(await changeSinkSettings(db.prisma(), s.id, { enabled: true }, [DISABLED_BY_USER])).toMatchObject({ outcome: 'changed', changed: { enabled: true, disabledReason: null } });
  expect(await sinkRow(s.id)).toMatchObject({ state: 'active', disabledReason: null });

  await db.prisma().$executeRaw`UPDATE sinks SET state = 'disabled', disabled_reason = 'table_missing' WHERE id = ${s.id}`;
  // Disabling a disabled sink keeps its reason; enabling it without the reason cleared writes nothing, the other values included.
  expect(await changeSinkSettings(db.prisma(), s.id, { enabled: false }, [])).toMatchObject({ outcome: 'changed', changed: {}, previous: {} });
  expect(await changeSinkSettings(db.prisma(), s.id, { enabled: true, rollSeconds: 61 }, [DISABLED_BY_USER])).toEqual({ outcome: 'stays_disabled', disabledReason: 'table_missing' });
  expect(await sinkRow(s.id)).toMatchObject({ state: 'disabled', disabledReason: 'table_missing', rollSeconds: 300 });
  expect(await changeSinkSettings(db.prisma(), s.id, { enabled: true, rollSeconds: 61 }, [DISABLED_BY_USER, 'table_missing'])).toMatchObject({ outcome: 'changed' });
  expect(await sinkRow(s.id)).toMatchObject({ state: 'active', disabledReason: null, rollSeconds: 61 });
});

test('a name a live sink of the catalog has is refused with nothing written; a deleted sink is not changed', async () => {
  await made('wh_n', { name: 'taken' });
  const s = await made('wh_n');
  expect(await changeSinkSettings(db.prisma(), s.id, { name: 'taken', rollSeconds: 90 }, [])).toEqual({ outcome: 'name_taken' });
  expect((await sinkRow(s.id)).rollSeconds).toBe(300);
  await markSinkDeleted(db.prisma(), s.id);
  expect(await changeSinkSettings(db.prisma(), s.id, { rollSeconds: 90 }, [])).toEqual({ outcome: 'deleted' });
  expect(await changeSinkSettings(db.prisma(), 'snk_none', { rollSeconds: 90 }, [])).toEqual({ outcome: 'deleted' });
});

test('20 changes at once: each replaced the one before it, and the row holds one change whole', async () => {
  const s = await made('wh_c20', { name: 'start' });
  const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => changeSinkSettings(db.prisma(), s.id, { name: `n${i}`, rollSeconds: 100 + i }, [])));
  const previousNames = new Set<string>();
  for (const r of outcomes) {
    if (r.outcome !== 'changed') throw new Error(`unexpected ${r.outcome}`);
    const i = Number(r.changed.name!.slice(1));
    expect(r.changed).toEqual({ name: `n${i}`, rollSeconds: 100 + i });
    expect(r.name).toBe(`n${i}`);
    previousNames.add(r.previous.name!);
  }
  // The previous names are the start and every name but the last: a chain with no change lost.
  const row = await sinkRow(s.id);
  expect(previousNames.size).toBe(20);
  expect(previousNames.has(row.name)).toBe(false);
  expect([...previousNames, row.name].sort()).toEqual(['start', ...Array.from({ length: 20 }, (_, i) => `n${i}`)].sort());
  expect(row.rollSeconds).toBe(100 + Number(row.name.slice(1)));
});
