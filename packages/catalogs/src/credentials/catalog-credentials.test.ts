import { hashSecret, secretMatches } from '@floe/auth';
import { CatalogSecrets } from './catalog-credentials';

test('secrets are derived per client id and nonce under the credential key, and match their stored hash', () => {
  const a = new CatalogSecrets('a-credential-key-of-enough-length');
  const b = new CatalogSecrets('another-credential-key-entirely');
  const s = a.secretFor('t-1', 'n1');
  expect(s).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
  expect(a.secretFor('t-1', 'n1')).toBe(s);
  expect(a.secretFor('t-1', 'n2')).not.toBe(s);
  expect(a.secretFor('t-2', 'n1')).not.toBe(s);
  expect(b.secretFor('t-1', 'n1')).not.toBe(s);
  expect(secretMatches(s, hashSecret(s))).toBe(true);
  expect(() => new CatalogSecrets(undefined)).toThrow(/FLOE_CREDENTIAL_KEY/);
});
