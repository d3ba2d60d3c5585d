import { Resolver } from 'node:dns/promises';
import type { TxtAnswer, TxtLookup } from '@floe/accounts';

// The TXT lookup of the domain DNS proof (the port is packages/accounts'
// domain-dns.ts): node:dns's resolver (c-ares, never the system's
// getaddrinfo) over FLOE_DNS_SERVERS, or the system's resolvers when none is
// set. Short on purpose — a request waits on it: 2 s a try, 2 tries a
// server, and the whole lookup cancelled at 5 s however many servers there
// are. A resolver per lookup: c-ares caches answers per channel, and a
// record just published must be seen, not an NXDOMAIN remembered from the
// last try. Absence (no such name, no TXT there) is an answer; a server that
// fails, refuses or stays silent is not, and the caller may retry.

const TRY_TIMEOUT_MS = 2000;
const TRIES = 2;
const DEADLINE_MS = 5000;

/** c-ares codes that mean the name has no TXT record: NXDOMAIN, and NOERROR with no answer. */
const ABSENT = new Set(['ENOTFOUND', 'ENODATA']);

export function txtLookup(servers: string[]): TxtLookup {
  return async (name: string): Promise<TxtAnswer> => {
    const resolver = new Resolver({ timeout: TRY_TIMEOUT_MS, tries: TRIES });
    if (servers.length) resolver.setServers(servers);
    const deadline = setTimeout(() => resolver.cancel(), DEADLINE_MS);
    try {
      // A TXT record is one or more strings of at most 255 bytes; its value is them joined.
      const records = await resolver.resolveTxt(name);
      return { kind: 'records', values: records.map((chunks) => chunks.join('')) };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      if (ABSENT.has(code)) return { kind: 'none' };
      return { kind: 'unavailable', reason: code === 'ECANCELLED' ? `no answer in ${DEADLINE_MS / 1000} s` : code };
    } finally {
      clearTimeout(deadline);
    }
  };
}
