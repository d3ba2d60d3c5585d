import type { Db } from '@floe/db';
import { newChallengeToken } from './domain-dns';

// The tokens of the DNS proof of domains (domain-dns.ts): one per
// organisation and domain, made the first time the organisation asks and
// kept, so every later asking, on any replica, gets the same. A token is
// kept after its domain is proven (verifying again, or claiming again after
// a removal, works with the record still published) and goes with its
// organisation.

/** The organisation's token for the domain, made now when it has none (two askings at once get the same one). */
export async function challengeTokenFor(db: Db, orgId: string, domain: string): Promise<string> {
  const where = { orgId_domain: { orgId, domain } };
  const held = await db.orgDomainChallenge.findUnique({ where, select: { token: true } });
  if (held) return held.token;
  // Of two makers at once, the first insert stands and both read it back.
  await db.orgDomainChallenge.createMany({ data: [{ orgId, domain, token: newChallengeToken() }], skipDuplicates: true });
  return (await db.orgDomainChallenge.findUniqueOrThrow({ where, select: { token: true } })).token;
}
