import { enforcementPlan, hardQuotaDrifted, quotaAsStored } from './enforcement-plan';

const at = new Date('2026-11-25T10:00:00Z');

test('over the limit freezes the scope\'s catalogs not yet read-only; under lifts the read-only ones; nothing else moves', () => {
  const catalogs = [{ id: 'a', readOnlySince: null }, { id: 'b', readOnlySince: at }, { id: 'c', readOnlySince: null }];
  expect(enforcementPlan({ over: true, catalogs })).toEqual({ freeze: ['a', 'c'], lift: [] });
  expect(enforcementPlan({ over: false, catalogs })).toEqual({ freeze: [], lift: ['b'] });
  expect(enforcementPlan({ over: true, catalogs: [{ id: 'b', readOnlySince: at }] })).toEqual({ freeze: [], lift: [] });
  expect(enforcementPlan({ over: false, catalogs: [{ id: 'a', readOnlySince: null }] })).toEqual({ freeze: [], lift: [] });
});

test('a hard quota has drifted when it is off or not the limit in whole KiB', () => {
  const limit = 5_368_709_120;
  expect(hardQuotaDrifted({ enabled: true, maxBytes: limit }, limit)).toBe(false);
  expect(hardQuotaDrifted({ enabled: false, maxBytes: null }, limit)).toBe(true);
  expect(hardQuotaDrifted({ enabled: true, maxBytes: 1024 }, limit)).toBe(true);
  expect(quotaAsStored(1500)).toBe(1024);
  expect(hardQuotaDrifted({ enabled: true, maxBytes: 1024 }, 1500)).toBe(false);
});
