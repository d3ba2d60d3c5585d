import { isKnownAddress } from './known-addresses';

describe('isKnownAddress', () => {
  const known = ['198.51.100.7', '2001:db8:1:2::5'];

  test('an IPv4 address only as itself', () => {
    expect(isKnownAddress(known, '198.51.100.7')).toBe(true);
    expect(isKnownAddress(known, '198.51.100.8')).toBe(false);
  });

  test('an IPv6 address within the /64 of a known one, not beyond', () => {
    expect(isKnownAddress(known, '2001:db8:1:2:abcd:ef01:2345:6789')).toBe(true);
    expect(isKnownAddress(known, '2001:db8:1:3::5')).toBe(false);
  });

  test('nothing known, or not an address: unknown', () => {
    expect(isKnownAddress([], '198.51.100.7')).toBe(false);
    expect(isKnownAddress(known, 'unknown')).toBe(false);
    // An IPv4 address is never matched by an IPv6 network, nor the reverse.
    expect(isKnownAddress(['::ffff:198.51.100.0'], '198.51.100.7')).toBe(false);
  });
});
