import { randomBytes } from 'node:crypto';
import { Keyring, SealedValueError, isSealed, sealedKeyId } from './sealed';

const key = (id: string) => ({ id, key: randomBytes(32) });
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

describe('Keyring', () => {
  const k1 = key('k1');
  const ring = new Keyring([k1]);

  test('a value sealed opens to itself; the sealed form names its key and shows nothing of the value', () => {
    const sealed = ring.seal(SECRET);
    expect(sealed).toMatch(/^v1:k1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain(SECRET);
    expect(sealed).not.toContain(Buffer.from(SECRET).toString('base64url').slice(0, 12));
    expect(ring.open(sealed)).toBe(SECRET);
    expect(sealedKeyId(sealed)).toBe('k1');
    // A fresh nonce each time: the same value never seals to the same text.
    expect(ring.seal(SECRET)).not.toBe(sealed);
    expect(ring.open(ring.seal(''))).toBe('');
    const jwk = JSON.stringify({ kty: 'RSA', d: 'private', n: 'x'.repeat(400) });
    expect(ring.open(ring.seal(jwk))).toBe(jwk);
  });

  test('another deployment\'s key, even under the same id, does not open it', () => {
    const sealed = ring.seal(SECRET);
    expect(() => new Keyring([key('k1')]).open(sealed)).toThrow(expect.objectContaining({ reason: 'tampered' }));
    const other = new Keyring([key('k9')]);
    expect(() => other.open(sealed)).toThrow(SealedValueError);
    expect(() => other.open(sealed)).toThrow(expect.objectContaining({ reason: 'unknown_key' }));
  });

  test('a changed byte anywhere is refused, and so is a relabelled key id', () => {
    const sealed = ring.seal(SECRET);
    const [v, id, iv, body] = sealed.split(':');
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const bad of [
      [v, id, flip(iv, 3), body].join(':'),
      [v, id, iv, flip(body, 0)].join(':'),
      [v, id, iv, flip(body, body.length - 2)].join(':'),
      [v, id, iv, body.slice(0, -4)].join(':'),
    ]) {
      expect(() => ring.open(bad)).toThrow(expect.objectContaining({ reason: 'tampered' }));
    }
    // The key id is bound to the ciphertext: the same key under another name does not open it.
    const twin = new Keyring([k1, { id: 'k2', key: k1.key }]);
    expect(() => twin.open([v, 'k2', iv, body].join(':'))).toThrow(expect.objectContaining({ reason: 'tampered' }));
  });

  test('rotation: the first key seals, every listed key opens, isCurrent tells which need resealing', () => {
    const k2 = key('k2');
    const old = ring.seal(SECRET);
    const rotated = new Keyring([k2, k1]);
    expect(rotated.currentKeyId).toBe('k2');
    expect(rotated.open(old)).toBe(SECRET);
    expect(rotated.isCurrent(old)).toBe(false);
    const resealed = rotated.seal(rotated.open(old));
    expect(sealedKeyId(resealed)).toBe('k2');
    expect(rotated.isCurrent(resealed)).toBe(true);
    // Once k1 is dropped, only what was resealed opens.
    const afterwards = new Keyring([k2]);
    expect(afterwards.open(resealed)).toBe(SECRET);
    expect(() => afterwards.open(old)).toThrow(expect.objectContaining({ reason: 'unknown_key' }));
    expect(afterwards.knows('k1')).toBe(false);
    expect(rotated.knows('k1')).toBe(true);
  });

  test('plaintext is told apart from a sealed value and refused by open, without echoing it', () => {
    const jwk = JSON.stringify({ kty: 'RSA', d: 'private-exponent' });
    for (const plain of [SECRET, jwk, '', 'v1:', 'v1:k1:short:x', 'v2:k1:AAAAAAAAAAAAAAAA:AAAA']) {
      expect(isSealed(plain)).toBe(false);
      let error: unknown;
      try {
        ring.open(plain);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(SealedValueError);
      expect((error as SealedValueError).reason).toBe('not_sealed');
      if (plain) expect((error as Error).message).not.toContain(plain);
    }
    expect(isSealed(ring.seal(SECRET))).toBe(true);
  });

  test('a keyring needs at least one key of 32 bytes, with distinct ids', () => {
    expect(() => new Keyring([])).toThrow(/FLOE_DATA_KEYS/);
    expect(() => new Keyring([{ id: 'k1', key: randomBytes(16) }])).toThrow(/32 bytes/);
    expect(() => new Keyring([k1, { id: 'k1', key: randomBytes(32) }])).toThrow(/twice/);
  });
});
