// Recording a roll against the real Postgres: a throwaway database with the
// real migrations, dropped afterwards.
import { randomBytes } from 'node:crypto';
import { throwawayDatabase } from '@floe/db/throwaway-database';
import { recordRoll } from './ledger-store';
import { RECENT_REJECT_ROLLS, RollReport, type RecentRejectRoll } from './roll-report';
import { insertSink } from './sink-store';

const db = throwawayDatabase('ledger_store', 8);

let n = 0;
const madeSink = async (): Promise<string> => {
  n += 1;
  const id = `snk_${n}_${randomBytes(4).toString('hex')}`;
  expect(await insertSink(db.prisma(), {
    id, name: `sink${n}`, warehouseId: 'wh_ledger', namespace: 'events', tableName: `t${n}`, rollSeconds: 300, rollBytes: 64 * 1024 * 1024,
    inactivitySeconds: null, sendKeyId: `sk_${id}`, sendKeyHash: 'x', createdBy: 'p_test',
  })).toBe(true);
  return id;
};
// A roll with `rows` rejected rows, told apart by that count.
const rollWithRejects = (rows: number) => RollReport.parse({
  rejected_rows: rows, reject_file: `_sink/rejects/${rows}.ndjson`,
  reject_summary: { reasons: { 'missing id': rows }, examples: [{ batch_id: 'b1', line: 1, reason: 'missing id', raw: '{}' }] },
});
const recent = async (id: string) => (await db.prisma().sink.findUniqueOrThrow({ where: { id } })).recentRejects as RecentRejectRoll[] | null;

test('a sink keeps its five latest rolls with rejects, newest first, each as recorded', async () => {
  const id = await madeSink();
  for (let rows = 1; rows <= 7; rows++) await recordRoll(db.prisma(), id, rollWithRejects(rows));
  const kept = (await recent(id))!;
  expect(kept).toHaveLength(RECENT_REJECT_ROLLS);
  expect(kept.map((r) => r.rows)).toEqual([7, 6, 5, 4, 3]);
  expect(kept[0]).toEqual({
    at: expect.any(String), rows: 7, snapshot_id: null, file: '_sink/rejects/7.ndjson',
    reasons: { 'missing id': 7 }, examples: [{ batch_id: 'b1', line: 1, reason: 'missing id', raw: '{}' }],
  });
  expect(Object.keys(kept[0]).sort()).toEqual(['at', 'examples', 'file', 'reasons', 'rows', 'snapshot_id']);
  expect((await db.prisma().sink.findUniqueOrThrow({ where: { id } })).rejectedRows).toBe(28n);
});

test('a roll without rejects leaves the recent rejects as they were; a stored value that is not a list counts as none', async () => {
  const id = await madeSink();
  await recordRoll(db.prisma(), id, RollReport.parse({}));
  expect(await recent(id)).toBeNull();
  await db.prisma().$executeRaw`UPDATE sinks SET recent_rejects = '{"not": "a list"}'::jsonb WHERE id = ${id}`;
  await recordRoll(db.prisma(), id, rollWithRejects(2));
  expect((await recent(id))!.map((r) => r.rows)).toEqual([2]);
});

test('rolls recorded at once, with no sink lock, each land in the recent rejects', async () => {
  const id = await madeSink();
  await Promise.all([1, 2, 3, 4].map((rows) => recordRoll(db.prisma(), id, rollWithRejects(rows))));
  const kept = (await recent(id))!;
  expect(kept.map((r) => r.rows).sort()).toEqual([1, 2, 3, 4]);
  expect((await db.prisma().sink.findUniqueOrThrow({ where: { id } })).rejectedRows).toBe(10n);
});
