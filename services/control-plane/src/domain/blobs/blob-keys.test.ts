import { attachmentDisposition, checkKey, checkPrefix, clampedInt, flag, refuseFloeOwnedKey, refuseFloeOwnedPrefix } from './blob-keys';

const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (err) {
    return `${(err as { status: number }).status} ${(err as { code: string }).code}`;
  }
};

test('prefixes: empty and ordinary ones pass; a leading /, a . or .. segment, a control character or over 1024 bytes do not', () => {
  expect(checkPrefix(undefined)).toBe('');
  expect(checkPrefix('logs/2026/')).toBe('logs/2026/');
  expect(checkPrefix('a..b/c.d')).toBe('a..b/c.d');
  for (const bad of ['/logs', 'a/../b', '..', 'a/./b', 'a\u0000b', 'a\nb', 'x'.repeat(1025), 'é'.repeat(513)]) {
    expect(codeOf(() => checkPrefix(bad))).toBe('400 invalid_prefix');
  }
  expect(checkPrefix('é'.repeat(512))).toHaveLength(512);
});

test('keys: required, then the prefix grammar as invalid_key', () => {
  expect(codeOf(() => checkKey(undefined))).toBe('400 missing_field');
  expect(codeOf(() => checkKey(''))).toBe('400 missing_field');
  expect(codeOf(() => checkKey('/a.txt'))).toBe('400 invalid_key');
  expect(checkKey('a b/ü.txt')).toBe('a b/ü.txt');
});

test('_sink/ is Floe\'s: keys inside it and prefixes reaching into it are refused', () => {
  expect(codeOf(() => refuseFloeOwnedKey('_sink/s1/b.ndjson'))).toBe('403 forbidden');
  expect(codeOf(() => refuseFloeOwnedKey('_sinks.txt'))).toBeUndefined();
  for (const p of ['', '_', '_sink', '_sink/', '_sink/s1/']) expect(codeOf(() => refuseFloeOwnedPrefix(p))).toBe('403 forbidden');
  for (const p of ['a', '_x', '_sinkx']) expect(codeOf(() => refuseFloeOwnedPrefix(p))).toBeUndefined();
});

test('numbers clamp into range; anything not a whole number is invalid_value', () => {
  expect(clampedInt(undefined, 'max_keys', 1, 1000, 1000)).toBe(1000);
  expect(clampedInt('0', 'max_keys', 1, 1000, 1000)).toBe(1);
  expect(clampedInt('5000', 'max_keys', 1, 1000, 1000)).toBe(1000);
  expect(clampedInt('-3', 'expires', 30, 3600, 900)).toBe(30);
  for (const bad of ['x', '1.5', '1e3', ' 7']) expect(codeOf(() => clampedInt(bad, 'max_keys', 1, 1000, 1000))).toBe('400 invalid_value');
});

test('flags are 1/true or 0/false', () => {
  expect(flag(undefined, 'urls')).toBe(false);
  expect(flag('1', 'urls')).toBe(true);
  expect(flag('true', 'urls')).toBe(true);
  expect(flag('0', 'urls')).toBe(false);
  expect(codeOf(() => flag('yes', 'urls'))).toBe('400 invalid_value');
});

test('the attachment names the key\'s last segment, quoted safely', () => {
  expect(attachmentDisposition('reports/q1.pdf')).toBe('attachment; filename="q1.pdf"');
  expect(attachmentDisposition('a/"x".txt')).toBe('attachment; filename="_x_.txt"; filename*=UTF-8\'\'%22x%22.txt');
  expect(attachmentDisposition('a/ü.txt')).toBe('attachment; filename="_.txt"; filename*=UTF-8\'\'%C3%BC.txt');
});
