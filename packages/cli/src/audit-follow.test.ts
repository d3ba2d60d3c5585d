import { AuditCursor, chronological, followAudit, type AuditEvent } from './audit-follow';

const event = (id: string, at: string, action = 'warehouse.create'): AuditEvent => ({
  id, action, created_at: at, actor_id: 'p_1', actor_kind: 'human', org_id: 'org_1', request_id: null, target_type: 'warehouse', target_id: 'w1', data: {},
});

test('chronological: oldest first, ties by numeric id', () => {
  const sorted = chronological([event('10', '2026-11-27T10:00:01.000Z'), event('9', '2026-11-27T10:00:00.000Z'), event('11', '2026-11-27T10:00:01.000Z'), event('2', '2026-11-27T10:00:01.000Z')]);
  expect(sorted.map((e) => e.id)).toEqual(['9', '2', '10', '11']);
});

test('the cursor prints each event once and moves `since` to the newest time seen', () => {
  const cursor = new AuditCursor('24h');
  expect(cursor.query).toBe('24h');
  const a = event('1', '2026-11-27T10:00:00.000Z');
  const b = event('2', '2026-11-27T10:00:05.000Z');
  expect(cursor.take([b, a]).map((e) => e.id)).toEqual(['1', '2']);
  expect(cursor.query).toBe('2026-11-27T10:00:05.000Z');
  // Floe's since includes its instant: b comes again with a newcomer at the same time and one later
  const c = event('3', '2026-11-27T10:00:05.000Z');
  const d = event('4', '2026-11-27T10:00:09.000Z');
  expect(cursor.take([d, c, b]).map((e) => e.id)).toEqual(['3', '4']);
  expect(cursor.query).toBe('2026-11-27T10:00:09.000Z');
  expect(cursor.take([d])).toEqual([]);
  expect(cursor.take([])).toEqual([]);
  expect(cursor.query).toBe('2026-11-27T10:00:09.000Z');
});

test('no event yet: the command line\'s since stays the query', () => {
  const cursor = new AuditCursor(undefined);
  expect(cursor.take([])).toEqual([]);
  expect(cursor.query).toBeUndefined();
});

test('followAudit polls with the newest time, emits only new events, and stops when aborted', async () => {
  const interrupt = new AbortController();
  const pages: AuditEvent[][] = [
    [event('2', '2026-11-27T10:00:05.000Z')], // the first page's newest again
    [event('3', '2026-11-27T10:00:07.000Z'), event('2', '2026-11-27T10:00:05.000Z')],
    [],
    [event('4', '2026-11-27T10:00:08.000Z'), event('3', '2026-11-27T10:00:07.000Z')],
  ];
  const asked: Array<string | undefined> = [];
  const emitted: string[] = [];
  const slept: number[] = [];
  const cursor = new AuditCursor('1h');
  cursor.take([event('2', '2026-11-27T10:00:05.000Z'), event('1', '2026-11-27T10:00:00.000Z')]);
  await followAudit({
    fetch: async (since) => {
      asked.push(since);
      const page = pages.shift();
      if (!pages.length) interrupt.abort(); // Ctrl-C after the last page
      return page ?? [];
    },
    emit: (e) => emitted.push(e.id),
    sleep: async (ms) => { slept.push(ms); },
    pollFailed: () => false,
    intervalMs: 5000,
    signal: interrupt.signal,
  }, cursor);
  expect(emitted).toEqual(['3', '4']);
  expect(asked).toEqual(['2026-11-27T10:00:05.000Z', '2026-11-27T10:00:05.000Z', '2026-11-27T10:00:07.000Z', '2026-11-27T10:00:07.000Z']);
  expect(slept).toEqual([5000, 5000, 5000, 5000]);
});

test('a poll that fails: carried on when pollFailed says so, else the failure ends the loop', async () => {
  const interrupt = new AbortController();
  let calls = 0;
  const emitted: string[] = [];
  const follow = (pollFailed: (err: unknown) => boolean) => followAudit({
    fetch: async () => {
      calls += 1;
      if (calls === 1) throw new Error('down');
      interrupt.abort();
      return [event('5', '2026-11-27T11:00:00.000Z')];
    },
    emit: (e) => emitted.push(e.id),
    sleep: async () => {},
    pollFailed,
    intervalMs: 1,
    signal: interrupt.signal,
  }, new AuditCursor(undefined));
  await follow(() => true);
  expect(emitted).toEqual(['5']);
  calls = 0;
  await expect(followAudit({
    fetch: async () => { throw new Error('refused'); }, emit: () => {}, sleep: async () => {}, pollFailed: () => false, intervalMs: 1, signal: new AbortController().signal,
  }, new AuditCursor(undefined))).rejects.toThrow('refused');
});
