import { BlockList, isIPv4, isIPv6 } from 'node:net';

// The login's known-address rule (login.ts): whether a caller address is one
// the person has signed in from before. Addresses arrive in one spelling
// (packages/http/src/client-address.ts: IPv4-mapped IPv6 as IPv4). An IPv4
// address must match exactly; an IPv6 one matches within its /64, the
// network one household or office is given, whose low bits a device changes
// by itself (RFC 8981 temporary addresses).

export const IPV6_PREFIX = 64;

export function isKnownAddress(known: readonly string[], ip: string): boolean {
  if (isIPv4(ip)) return known.includes(ip);
  if (!isIPv6(ip)) return false;
  const networks = new BlockList();
  for (const k of known) if (isIPv6(k)) networks.addSubnet(k, IPV6_PREFIX, 'ipv6');
  return networks.check(ip, 'ipv6');
}
