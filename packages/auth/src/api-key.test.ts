import { generateApiKey, hashSecret, parseApiKey, secretMatches } from './api-key';

describe('API key format', () => {
  test('a generated key parses back to its id and secret and matches its hash', () => {
    const k = generateApiKey();
    expect(k.token).toBe(`al_live_${k.keyId}_${k.secret}`);
    expect(k.keyId).toMatch(/^[a-z2-7]{16}$/);
    expect(k.secret).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(parseApiKey(k.token)).toEqual({ keyId: k.keyId, secret: k.secret });
    expect(secretMatches(k.secret, k.secretHash)).toBe(true);
    expect(k.secretHash).toBe(hashSecret(k.secret));
    expect(k.secretHash).not.toContain(k.secret);
  });

  test('a wrong secret does not match', () => {
    const k = generateApiKey();
    const other = generateApiKey();
    expect(secretMatches(other.secret, k.secretHash)).toBe(false);
  });

  test.each([
    'al_test_abcdefghijklmnop_x',
    'al_live_',
    'al_live_abcdefghijklmnop',
    'al_live_ABCDEFGHIJKLMNOP_' + 'a'.repeat(43),
    'al_live_abcdefghijklmnop_' + 'a'.repeat(42),
    'al_live_abcdefghijklmnop_' + 'a'.repeat(42) + '_',
  ])('malformed %s is refused', (token) => {
    expect(parseApiKey(token)).toBeNull();
  });

  test('two keys never share an id or secret', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const k = generateApiKey();
      expect(seen.has(k.keyId)).toBe(false);
      seen.add(k.keyId);
    }
  });
});

describe('send keys', () => {
  test('generate, recognise and parse; only the hash of the secret is kept', async () => {
    const { generateSendKey, parseSendKey, looksLikeSendKey } = await import('./send-key');
    const k = generateSendKey();
    expect(k.token).toMatch(/^fsk_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(looksLikeSendKey(k.token)).toBe(true);
    const parsed = parseSendKey(k.token)!;
    expect(parsed.keyId).toBe(k.keyId);
    expect(secretMatches(parsed.secret, k.secretHash)).toBe(true);
    expect(k.token).not.toContain(k.secretHash);
    expect(parseSendKey('fsk_short_x')).toBeNull();
    expect(parseSendKey(`al_live_${k.keyId}_x`)).toBeNull();
  });
});
