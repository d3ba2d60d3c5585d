import { HttpError } from '@floe/http';
import { FILES_PREFIX_MAX_BYTES, filesPrefixOf, publicTierOverflow } from './publishing';

// POST …/public's input rule for `files_prefix` and the public tier's state rule
// (tests/e2e/public-connection.test.ts publishes with a prefix over HTTP and reads anonymously).

const w = { tableBucket: 'acme--lake' };

const refusal = (raw: unknown): { status: number; code: string; reason: unknown } => {
  try {
    filesPrefixOf(w, raw);
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, code: err.code, reason: err.extras.reason };
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(raw)} to be refused`);
};

test('no prefix, an empty one, or the bucket itself: the whole bucket', () => {
  for (const raw of [undefined, null, '', 's3://acme--lake', 's3://acme--lake/', 'S3A://acme--lake/']) {
    expect([raw, filesPrefixOf(w, raw)]).toEqual([raw, '']);
  }
});

test('a key prefix or a location in the catalog\'s own bucket: the key prefix, ending in /', () => {
  expect(filesPrefixOf(w, 'lake/cities')).toBe('lake/cities/');
  expect(filesPrefixOf(w, 'lake/cities/')).toBe('lake/cities/');
  expect(filesPrefixOf(w, 's3://acme--lake/lake/cities-0a1b')).toBe('lake/cities-0a1b/');
  expect(filesPrefixOf(w, 's3a://acme--lake/lake/')).toBe('lake/');
  expect(filesPrefixOf(w, 'dépôt/ü b/')).toBe('dépôt/ü b/');
  const longest = `${'a'.repeat(FILES_PREFIX_MAX_BYTES - 1)}/`;
  expect(filesPrefixOf(w, longest)).toBe(longest);
});

test('400 invalid_files_prefix: wrong types, other buckets, climbing paths, control characters, policy patterns, length', () => {
  const cases: Array<[unknown, RegExp]> = [
    [42, /must be a string/],
    [['lake/'], /must be a string/],
    [{ prefix: 'lake/' }, /must be a string/],
    ['s3://other-bucket/lake/', /another bucket/],
    ['s3://acme--lake-x/lake/', /another bucket/],
    ['/lake/', /starts with `\/`/],
    ['lake//cities/', /empty, `\.` or `\.\.` segment/],
    ['lake/../other/', /segment/],
    ['./lake/', /segment/],
    ['..', /segment/],
    ['lake\u0000/', /control character/],
    ['lake\n/', /control character/],
    ['lake/*', /`\*`, `\?` or `\$\{`/],
    ['lake/?x/', /`\*`/],
    ['${aws:username}/', /`\*`/],
    [`${'é'.repeat(FILES_PREFIX_MAX_BYTES / 2)}/`, /longer than 512 bytes/],
  ];
  for (const [raw, reason] of cases) {
    const r = refusal(raw);
    expect([raw, r.status, r.code]).toEqual([raw, 400, 'invalid_files_prefix']);
    expect(String(r.reason)).toMatch(reason);
  }
});

test('the public tier: overflow only past its allowance, with the headroom left before this catalog', () => {
  expect(publicTierOverflow(10, 40, 50)).toBeNull();
  expect(publicTierOverflow(10, 41, 50)).toEqual({ current: 51, limit_value: 50, headroom: 40 });
  expect(publicTierOverflow(60, 1, 50)).toEqual({ current: 61, limit_value: 50, headroom: 0 });
});
