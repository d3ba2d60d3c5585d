import { driftedQuotas, enforcementPlan, hardQuotaDrifted, quotaAsStored, standingQuotas } from './enforcement-plan';

const at = new Date('2026-11-25T10:00:00Z');
const limits = { storage: 5_368_709_120, publicStorage: 53_687_091_200 };
const catalog = (id: string, readOnlySince: Date | null, publicSince: Date | null = null) => ({ id, tableBucket: `${id}-t`, blobBucket: `${id}-b`, readOnlySince, publicSince });

test('over the limit freezes the scope\'s catalogs not yet read-only; under lifts the read-only ones; nothing else moves', () => {
  const catalogs = [catalog('a', null), catalog('b', at), catalog('c', null)];
  expect(enforcementPlan({ over: true, limits, catalogs })).toEqual({ freeze: [{ id: 'a', buckets: ['a-t', 'a-b'] }, { id: 'c', buckets: ['c-t', 'c-b'] }], lift: [] });
  expect(enforcementPlan({ over: false, limits, catalogs })).toEqual({
    freeze: [], lift: [{ id: 'b', quotas: [{ bucket: 'b-t', limitBytes: limits.storage }, { bucket: 'b-b', limitBytes: limits.storage }] }],
  });
  expect(enforcementPlan({ over: true, limits, catalogs: [catalog('b', at)] })).toEqual({ freeze: [], lift: [] });
  expect(enforcementPlan({ over: false, limits, catalogs: [catalog('a', null)] })).toEqual({ freeze: [], lift: [] });
});

test('a public catalog\'s table bucket is in the public tier: the private freeze takes its blob bucket only, a lift gives the table bucket the public allowance', () => {
  const catalogs = [catalog('p', null, at), catalog('q', at, at)];
  expect(enforcementPlan({ over: true, limits, catalogs })).toEqual({ freeze: [{ id: 'p', buckets: ['p-b'] }], lift: [] });
  expect(enforcementPlan({ over: false, limits, catalogs })).toEqual({
    freeze: [], lift: [{ id: 'q', quotas: [{ bucket: 'q-b', limitBytes: limits.storage }, { bucket: 'q-t', limitBytes: limits.publicStorage }] }],
  });
});

test('standing hard quotas: every bucket at its tier\'s limit while writable; frozen, only a public table bucket keeps one', () => {
  expect(standingQuotas(catalog('a', null), limits, false)).toEqual([{ bucket: 'a-t', limitBytes: limits.storage }, { bucket: 'a-b', limitBytes: limits.storage }]);
  expect(standingQuotas(catalog('a', at), limits, true)).toEqual([]);
  expect(standingQuotas(catalog('p', null, at), limits, false)).toEqual([{ bucket: 'p-b', limitBytes: limits.storage }, { bucket: 'p-t', limitBytes: limits.publicStorage }]);
  expect(standingQuotas(catalog('p', at, at), limits, true)).toEqual([{ bucket: 'p-t', limitBytes: limits.publicStorage }]);
});

test('a hard quota has drifted when it is off or not the limit in whole KiB', () => {
  const limit = 5_368_709_120;
  expect(hardQuotaDrifted({ enabled: true, maxBytes: limit }, limit)).toBe(false);
  expect(hardQuotaDrifted({ enabled: false, maxBytes: null }, limit)).toBe(true);
  expect(hardQuotaDrifted({ enabled: true, maxBytes: 1024 }, limit)).toBe(true);
  expect(quotaAsStored(1500)).toBe(1024);
  expect(hardQuotaDrifted({ enabled: true, maxBytes: 1024 }, 1500)).toBe(false);
});

test('drifted quotas of a measured catalog: only standing ones, only buckets read, each against its own tier\'s limit', () => {
  const atPrivate = { enabled: true, maxBytes: limits.storage };
  const atPublic = { enabled: true, maxBytes: limits.publicStorage };
  const frozenAt = { enabled: true, maxBytes: 4096 };
  // A writable private catalog: a bucket off its limit drifted; a bucket not read (no blob bucket yet) is left alone.
  expect(driftedQuotas(catalog('a', null), limits, false, new Map([['a-t', atPrivate], ['a-b', frozenAt]]))).toEqual([{ bucket: 'a-b', limitBytes: limits.storage }]);
  expect(driftedQuotas(catalog('a', null), limits, false, new Map([['a-t', atPrivate]]))).toEqual([]);
  // Frozen private buckets hold their freeze.
  expect(driftedQuotas(catalog('a', at), limits, true, new Map([['a-t', frozenAt], ['a-b', frozenAt]]))).toEqual([]);
  // A public table bucket carries the public allowance, frozen catalog or not: at the private limit, or frozen (published while read-only), it drifted.
  expect(driftedQuotas(catalog('p', null, at), limits, false, new Map([['p-t', atPublic], ['p-b', atPrivate]]))).toEqual([]);
  expect(driftedQuotas(catalog('p', null, at), limits, false, new Map([['p-t', atPrivate], ['p-b', atPrivate]]))).toEqual([{ bucket: 'p-t', limitBytes: limits.publicStorage }]);
  expect(driftedQuotas(catalog('p', at, at), limits, true, new Map([['p-t', frozenAt], ['p-b', frozenAt]]))).toEqual([{ bucket: 'p-t', limitBytes: limits.publicStorage }]);
});
