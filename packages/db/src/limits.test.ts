import { applyOverrides, isLimitName, LIMITS, overridesOf, PLANS, tierBuckets } from './limits';

test('every plan names every limit, and custom starts from the free numbers', () => {
  for (const plan of Object.values(PLANS)) expect(Object.keys(plan).sort()).toEqual(Object.keys(LIMITS).sort());
  expect(PLANS.custom).toEqual(PLANS.free);
  expect(PLANS.free.storage_bytes).toBe(5_368_709_120);
});

test('overrides lay over the plan; stored junk is ignored, not trusted', () => {
  expect(applyOverrides('free', { storage_bytes: 1000, projects: 0 })).toMatchObject({ storage_bytes: 1000, projects: 0, device_sinks: PLANS.free.device_sinks });
  expect(overridesOf({ storage_bytes: 5, objects: -1, projects: 1.5, nonsense: 3, device_sinks: '4' })).toEqual({ storage_bytes: 5 });
  expect(overridesOf(null)).toEqual({});
  expect(isLimitName('storage_bytes')).toBe(true);
  expect(isLimitName('toString')).toBe(false);
});

test('a public catalog\'s table bucket is in the public tier; its blob bucket and every bucket of a private catalog are private', () => {
  expect(tierBuckets({ tableBucket: 't', blobBucket: 'b', publicSince: null })).toEqual({ private: ['t', 'b'], public: [] });
  expect(tierBuckets({ tableBucket: 't', blobBucket: 'b', publicSince: new Date() })).toEqual({ private: ['b'], public: ['t'] });
});
