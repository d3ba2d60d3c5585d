import { effectivePolicy, policyForbids, POLICY_DEFAULTS } from './org-policy';

describe('effectivePolicy', () => {
  test('nothing stored, or not an object: the defaults', () => {
    for (const stored of [{}, null, undefined, 'admins', [1]]) expect(effectivePolicy(stored)).toEqual(POLICY_DEFAULTS);
  });
  test('valid stored choices replace their defaults; unknown fields and choices a field does not have are ignored', () => {
    expect(effectivePolicy({ agents: 'admins', device_login: 'nobody', public_catalogs: 'members', oauth_consent: 7, mfa: 'on' }))
      .toEqual({ ...POLICY_DEFAULTS, agents: 'admins', device_login: 'nobody' });
  });
});

describe('policyForbids', () => {
  const policy = { agents: 'admins', device_login: 'nobody', oauth_consent: 'members', public_catalogs: 'admins', second_factor: 'optional' } as const;
  test('admins: members refused, admins not; nobody: everyone refused; members: nobody refused', () => {
    expect(policyForbids(policy, 'agents', 'member')).toBe(true);
    expect(policyForbids(policy, 'agents', 'admin')).toBe(false);
    expect(policyForbids(policy, 'device_login', 'admin')).toBe(true);
    expect(policyForbids(policy, 'oauth_consent', 'member')).toBe(false);
  });
});
