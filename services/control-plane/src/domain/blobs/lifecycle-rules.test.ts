import { parseLifecycleBody } from './lifecycle-rules';

const refusal = (body: unknown): Record<string, unknown> | undefined => {
  try {
    parseLifecycleBody(body);
    return undefined;
  } catch (err) {
    const e = err as { status: number; code: string; extras: Record<string, unknown> };
    return { status: e.status, code: e.code, ...e.extras };
  }
};

test('expressible rules pass and render S3\'s document', () => {
  const { rules, xml } = parseLifecycleBody({ rules: [
    { id: 'tmp', prefix: 'tmp/', expire_days: 1 },
    { prefix: 'old/', expire_date: '2027-01-31', enabled: false },
    { abort_incomplete_multipart_days: 2 },
  ] });
  expect(rules).toEqual([
    { id: 'tmp', prefix: 'tmp/', expire_days: 1 },
    { prefix: 'old/', expire_date: '2027-01-31', enabled: false },
    { abort_incomplete_multipart_days: 2 },
  ]);
  expect(xml).toContain('<ID>rule-2</ID>');
});

test('every refusal the spec names, with its status and code', () => {
  expect(refusal({ rules: [{ expire_days: 0 }] })).toMatchObject({ status: 400, code: 'invalid_value', field: 'rules[0].expire_days' });
  expect(refusal({ rules: [{ expire_days: 1.5 }] })).toMatchObject({ status: 400, code: 'invalid_value' });
  expect(refusal({ rules: [{ expire_days: '3' }] })).toMatchObject({ status: 400, code: 'invalid_value' });
  expect(refusal({ rules: [{ abort_incomplete_multipart_days: 0 }] })).toMatchObject({ status: 400, code: 'invalid_value' });
  expect(refusal({ rules: [{ expire_days: 1, expire_date: '2027-01-01' }] })).toMatchObject({ status: 400, code: 'invalid_value', field: 'rules[0]' });
  expect(refusal({ rules: [{ expire_date: '2027-02-30' }] })).toMatchObject({ status: 400, code: 'invalid_value', field: 'rules[0].expire_date' });
  expect(refusal({ rules: [{ expire_days: 1, transitions: [{ days: 3, storage_class: 'GLACIER' }] }] })).toMatchObject({ status: 400, code: 'not_supported' });
  expect(refusal({ rules: [{ transition_days: 3 }] })).toMatchObject({ status: 400, code: 'not_supported' });
  expect(refusal({ rules: [{ expire_days: 1, tags: { a: 'b' } }] })).toMatchObject({ status: 400, code: 'invalid_value', field: 'rules[0].tags', accepted: expect.arrayContaining(['id', 'prefix', 'expire_days']) });
  expect(refusal({ rules: [{ expire_days: 1 }], other: 1 })).toMatchObject({ status: 400, code: 'invalid_value', accepted: ['rules'] });
  expect(refusal({ rules: [{ id: 'a', prefix: 'x/', expire_days: 1 }, { id: 'a', prefix: 'y/', expire_days: 2 }] })).toMatchObject({ status: 400, code: 'invalid_value', duplicate: 'a' });
  // An expiry reaching _sink/ (no prefix covers it) would delete sink batches before they are rolled.
  for (const prefix of [undefined, '', '_', '_sink/', '_sink/abc/']) {
    expect(refusal({ rules: [{ prefix, expire_days: 1 }] })).toMatchObject({ status: 400, code: 'invalid_value', field: 'rules[0].prefix', reserved_prefix: '_sink/' });
  }
  expect(refusal({ rules: [{ abort_incomplete_multipart_days: 1 }] })).toBeUndefined();
  // An explicit id equal to a generated one is a duplicate too.
  expect(refusal({ rules: [{ prefix: 'a/', expire_days: 1 }, { id: 'rule-1', prefix: 'b/', expire_days: 2 }] })).toMatchObject({ status: 400, code: 'invalid_value', duplicate: 'rule-1' });
  expect(refusal({ rules: [] })).toMatchObject({ status: 400, code: 'invalid_value', field: 'rules' });
  expect(refusal({})).toMatchObject({ status: 400, code: 'missing_field', field: 'rules' });
  expect(refusal({ rules: [{ prefix: '/abs', expire_days: 1 }] })).toMatchObject({ status: 400, code: 'invalid_value', field: 'rules[0].prefix' });
  expect(refusal({ rules: [{ prefix: 'a/' }] })).toMatchObject({ status: 400, code: 'invalid_value', field: 'rules[0]' });
  expect(refusal({ rules: Array.from({ length: 1001 }, () => ({ expire_days: 1 })) })).toMatchObject({ status: 413, code: 'too_large', limit: 1000, current: 1001 });
  // 1000 rules whose prefixes escape five-fold in XML: under the body limit as JSON, over 1 MiB as S3's document.
  const big = refusal({ rules: Array.from({ length: 1000 }, (_, i) => ({ id: `r${i}`, prefix: `${'&'.repeat(250)}/`, expire_days: 1 })) });
  expect(big).toMatchObject({ status: 413, code: 'too_large', limit: 1024 * 1024 });
  expect(big!.current).toBeGreaterThan(1024 * 1024);
});
