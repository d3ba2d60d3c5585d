import { challengeRecord, legacyChallengeToken, legacyDomainProofKey, newChallengeToken } from './domain-dns';

test('a new token is random, 32 base64url characters; the record publishes it at _floe-challenge.<domain>', () => {
  const tokens = new Set(Array.from({ length: 50 }, newChallengeToken));
  expect(tokens.size).toBe(50);
  for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9_-]{32}$/);
  expect(challengeRecord('acme.test', 'tok')).toEqual({ type: 'TXT', name: '_floe-challenge.acme.test', value: 'floe-domain-verification=tok' });
});

test('a token handed out before tokens were stored is made again exactly as it was, under the secret it was made under', () => {
  // Pinned: the record the derived scheme gave this organisation for this domain under this secret.
  const key = legacyDomainProofKey('bootstrap-secret-for-tests-0001')!;
  expect(challengeRecord('acme.test', legacyChallengeToken(key, 'org_0123456789', 'acme.test')).value).toBe('floe-domain-verification=rIaFpH8Ag70L3HIu_drz-q74A0c2fkvz');
  // Another secret, organisation or domain: another token; no secret: none.
  expect(legacyChallengeToken(legacyDomainProofKey('another-bootstrap-secret-0002')!, 'org_0123456789', 'acme.test')).not.toBe('rIaFpH8Ag70L3HIu_drz-q74A0c2fkvz');
  expect(legacyChallengeToken(key, 'org_other', 'acme.test')).not.toBe(legacyChallengeToken(key, 'org_0123456789', 'acme.test'));
  expect(legacyDomainProofKey(undefined)).toBeNull();
});
