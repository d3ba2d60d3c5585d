import { applyUpdates } from '../metadata/updates';
import { checkRequirements } from '../metadata/requirements';
import { planSnapshotExpiry, type ExpiryPlan } from './expiry';
import { chain, DAY, DEFAULTS, NOW, tableWith } from './test-fixtures';

const plan = (meta: Parameters<typeof planSnapshotExpiry>[0], defaults = DEFAULTS) =>
  planSnapshotExpiry(meta, { nowMs: NOW, defaults });
const reasonOf = (p: ExpiryPlan, id: bigint) =>
  p.retained.find((r) => r.snapshotId === id)?.reason ?? p.expired.find((e) => e.snapshotId === id)?.reason;

describe('planSnapshotExpiry', () => {
  test('main keeps its head and what is within the age limit', () => {
    const meta = tableWith(chain(10, NOW, DAY), { main: { 'snapshot-id': 10n } });
    const p = plan(meta);
    expect(p.retained.map((r) => r.snapshotId)).toEqual([10n, 9n, 8n, 7n, 6n, 5n, 4n, 3n]);
    expect(p.expiredSnapshotIds).toEqual([2n, 1n]);
    expect(reasonOf(p, 10n)).toBe('main head');
    expect(reasonOf(p, 3n)).toBe('within 7 days on main');
    expect(reasonOf(p, 2n)).toBe('older than 7 days on main');
    expect(p.updates).toEqual([{ action: 'remove-snapshots', 'snapshot-ids': [2n, 1n] }]);
  });

  test('a sink table after 2,000 rolls keeps 20 snapshots, and the plan commits', () => {
    const meta = tableWith(chain(2000, NOW, 60_000), { main: { 'snapshot-id': 2000n } });
    const p = plan(meta);
    expect(p.retained).toHaveLength(20);
    expect(p.retained.at(-1)!.snapshotId).toBe(1981n);
    expect(p.expired).toHaveLength(1980);
    expect(reasonOf(p, 1980n)).toBe('beyond the newest 20 on main');

    expect(checkRequirements(meta, p.requirements)).toEqual([]);
    const after = applyUpdates(meta, p.updates, { nowMs: NOW });
    expect(after.snapshots).toHaveLength(20);
    expect(after['current-snapshot-id']).toBe(2000n);
    expect(plan(after).updates).toEqual([]);
  });

  test('a concurrent commit to main fails the plan requirements', () => {
    const meta = tableWith(chain(30, NOW, 60_000), { main: { 'snapshot-id': 30n } });
    const p = plan(meta);
    const appended = applyUpdates(meta, [
      { action: 'add-snapshot', snapshot: { 'snapshot-id': 31n, 'parent-snapshot-id': 30n, 'sequence-number': 31n, 'timestamp-ms': BigInt(NOW), 'manifest-list': 'x', summary: { operation: 'append' } } },
      { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': 31n },
    ], { nowMs: NOW });
    expect(checkRequirements(appended, p.requirements).map((f) => f.message)).toEqual([
      'Requirement failed: branch main has changed: expected id 30 != 31',
    ]);
    expect(p.requirements[0]).toEqual({ type: 'assert-table-uuid', uuid: meta['table-uuid'] });
  });

  test('min-snapshots-to-keep is never undercut by the cap or the age', () => {
    const many = tableWith(chain(2000, NOW, 60_000), { main: { 'snapshot-id': 2000n } }, { 'history.expire.min-snapshots-to-keep': '30' });
    const p = plan(many);
    expect(p.retained).toHaveLength(30);
    expect(reasonOf(p, 1981n)).toBe('within 7 days on main');
    expect(reasonOf(p, 1980n)).toBe('min-snapshots-to-keep (30) on main');
    expect(reasonOf(p, 1970n)).toBe('beyond the newest 20 on main');

    const old = tableWith(chain(10, NOW - 30 * DAY, DAY), { main: { 'snapshot-id': 10n } });
    expect(plan(old, { ...DEFAULTS, minSnapshotsToKeep: 3 }).retained.map((r) => [r.snapshotId, r.reason])).toEqual([
      [10n, 'main head'],
      [9n, 'min-snapshots-to-keep (3) on main'],
      [8n, 'min-snapshots-to-keep (3) on main'],
    ]);
  });

  test('table history.expire properties override the defaults; bad values are ignored', () => {
    const meta = tableWith(chain(10, NOW, DAY), { main: { 'snapshot-id': 10n } }, {
      'history.expire.max-snapshot-age-ms': String(2 * DAY),
      'history.expire.min-snapshots-to-keep': 'lots',
    });
    const p = plan(meta);
    expect(p.policy).toEqual({ maxSnapshotAgeMs: BigInt(2 * DAY), minSnapshotsToKeep: 1, maxSnapshots: 20, maxRefAgeMs: null });
    expect(p.retained.map((r) => r.snapshotId)).toEqual([10n, 9n, 8n]);
    expect(reasonOf(p, 8n)).toBe('within 2 days on main');
  });

  test("a branch's own retention properties override the table's", () => {
    // main: 1..6 a day apart; dev forks at 3 with 101, 102
    const snaps = [...chain(6, NOW, DAY), { id: 101n, parent: 3n, ts: NOW - DAY }, { id: 102n, ts: NOW }];
    const meta = tableWith(snaps, {
      main: { 'snapshot-id': 6n },
      dev: { 'snapshot-id': 102n, 'max-snapshot-age-ms': BigInt(30 * DAY), 'min-snapshots-to-keep': 2 },
    }, { 'history.expire.max-snapshot-age-ms': String(DAY) });
    const p = plan(meta);
    expect(p.expiredSnapshotIds).toEqual([4n]); // on main only, and too old for main
    expect(reasonOf(p, 4n)).toBe('older than 1 day on main');
    expect(reasonOf(p, 102n)).toBe('branch dev head');
    expect(p.retained.find((r) => r.snapshotId === 5n)!.reasons).toEqual(['within 1 day on main']);
    expect(p.retained.find((r) => r.snapshotId === 3n)!.reasons).toEqual(['within 30 days on dev']);
    expect(p.retained.find((r) => r.snapshotId === 1n)!.reasons).toEqual(['within 30 days on dev']);

    const tighter = tableWith(snaps, {
      main: { 'snapshot-id': 6n },
      dev: { 'snapshot-id': 102n, 'max-snapshot-age-ms': 1n, 'min-snapshots-to-keep': 2 },
    }, { 'history.expire.max-snapshot-age-ms': String(DAY) });
    const q = plan(tighter);
    expect(reasonOf(q, 101n)).toBe('min-snapshots-to-keep (2) on dev');
    expect(q.expiredSnapshotIds).toEqual([4n, 3n, 2n, 1n]);
    expect(reasonOf(q, 3n)).toBe('older than 1 day on main'); // main's reason reads first
    expect(q.requirements.filter((r) => r.type === 'assert-ref-snapshot-id')).toEqual([
      { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': 6n },
      { type: 'assert-ref-snapshot-id', ref: 'dev', 'snapshot-id': 102n },
    ]);
  });

  test('a tag keeps its snapshot but not its ancestors', () => {
    const meta = tableWith(chain(20, NOW, DAY), { main: { 'snapshot-id': 20n }, v1: { 'snapshot-id': 5n, type: 'tag' } });
    const p = plan(meta);
    expect(reasonOf(p, 5n)).toBe('tag v1');
    expect(p.expiredSnapshotIds).toContain(4n);
    expect(p.expiredSnapshotIds).toContain(6n);
    expect(p.removedRefs).toEqual([]);
  });

  test('a tag older than its max-ref-age is removed, then its snapshot expires', () => {
    const meta = tableWith(chain(20, NOW, DAY), {
      main: { 'snapshot-id': 20n },
      old: { 'snapshot-id': 5n, type: 'tag', 'max-ref-age-ms': BigInt(10 * DAY) },
      kept: { 'snapshot-id': 6n, type: 'tag' },
    });
    const p = plan(meta);
    expect(p.removedRefs).toEqual([{ name: 'old', type: 'tag', snapshotId: 5n, reason: 'tag old older than max-ref-age 10 days' }]);
    expect(reasonOf(p, 5n)).toBe('older than 7 days on main');
    expect(reasonOf(p, 6n)).toBe('tag kept');
    expect(p.updates[0]).toEqual({ action: 'remove-snapshot-ref', 'ref-name': 'old' });
    expect(p.updates[1].action).toBe('remove-snapshots');
    const after = applyUpdates(meta, p.updates, { nowMs: NOW });
    expect(Object.keys(after.refs!).sort()).toEqual(['kept', 'main']);
  });

  test('the table max-ref-age removes old branches but never main', () => {
    const snaps = [...chain(3, NOW - 40 * DAY, DAY), { id: 50n, parent: 1n, ts: NOW - 45 * DAY }];
    const meta = tableWith(snaps, { main: { 'snapshot-id': 3n }, stale: { 'snapshot-id': 50n } }, {
      'history.expire.max-ref-age-ms': String(30 * DAY),
    });
    const p = plan(meta);
    expect(p.removedRefs.map((r) => r.name)).toEqual(['stale']);
    expect(reasonOf(p, 3n)).toBe('main head');
    expect(p.expiredSnapshotIds).toEqual([2n, 1n, 50n]);
    expect(reasonOf(p, 50n)).toBe('unreferenced, older than 7 days'); // its branch went first
  });

  test('unreferenced snapshots stay while young, at most maxSnapshots of them', () => {
    // main 1..3; 30 staged snapshots off 3 that no ref reaches, one old
    const staged = Array.from({ length: 30 }, (_, i) => ({ id: 100n + BigInt(i), parent: 3n, ts: NOW - (30 - i) * 60_000 }));
    const meta = tableWith([...chain(3, NOW - 60 * 60_000, 60_000), ...staged, { id: 999n, parent: 3n, ts: NOW - 9 * DAY }], {
      main: { 'snapshot-id': 3n },
    });
    const p = plan(meta);
    const unreferenced = p.retained.filter((r) => r.reason.startsWith('unreferenced'));
    expect(unreferenced).toHaveLength(20);
    expect(unreferenced[0]).toMatchObject({ snapshotId: 129n, reason: 'unreferenced, within 7 days' });
    expect(reasonOf(p, 109n)).toBe('unreferenced, beyond the newest 20');
    expect(reasonOf(p, 999n)).toBe('unreferenced, older than 7 days');
    expect(p.retained.filter((r) => r.snapshotId <= 3n)).toHaveLength(3);
  });

  test('a table without snapshots plans nothing', () => {
    const p = plan(tableWith([], {}));
    expect(p).toMatchObject({ retained: [], expired: [], updates: [], removedRefs: [] });
  });
});
