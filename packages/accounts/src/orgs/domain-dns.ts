import { createHmac, randomBytes } from 'node:crypto';

// The DNS proof of a domain (POST /v1/orgs/{org_id}/domains/{domain}/verify;
// the spec names the route and its codes, Floe chose the record): the
// organisation publishes a TXT record `_floe-challenge.<domain>` whose value
// is `floe-domain-verification=<token>`. The token is random, one per
// organisation and domain, made the first time the organisation is told it
// and stored (domain-challenges.ts), so it is the same on every replica and
// at every asking, no other organisation can know it before it is published,
// and no deployment secret is involved: rotating FLOE_BOOTSTRAP_SECRET
// changes no token. It is published in DNS, so it is no secret either.
//
// Before tokens were stored, the token was an HMAC of the organisation and the
// domain under a key derived from the bootstrap secret, and nothing was kept.
// Such a record, handed out and perhaps published then, still proves the
// domain while the deployment has the secret it was made under (legacy*).

export const CHALLENGE_LABEL = '_floe-challenge';
export const CHALLENGE_VALUE_PREFIX = 'floe-domain-verification=';

export interface DnsChallenge {
  type: 'TXT';
  name: string;
  value: string;
}

/** A new token: 24 random bytes, 32 base64url characters (the length the derived tokens had). */
export const newChallengeToken = (): string => randomBytes(24).toString('base64url');

/** The record that publishes `token` for `domain` (already normalised: lower case, no trailing dot). */
export function challengeRecord(domain: string, token: string): DnsChallenge {
  return { type: 'TXT', name: `${CHALLENGE_LABEL}.${domain}`, value: `${CHALLENGE_VALUE_PREFIX}${token}` };
}

/** The key the derived tokens were made under, from the bootstrap secret; null without one (no such record can be checked). */
export function legacyDomainProofKey(bootstrapSecret: string | undefined): Buffer | null {
  return bootstrapSecret ? createHmac('sha256', 'floe domain verification v1').update(bootstrapSecret).digest() : null;
}

/** The token an organisation was given for a domain before tokens were stored. */
export function legacyChallengeToken(key: Buffer, orgId: string, domain: string): string {
  return createHmac('sha256', key).update(`domain-verification:${orgId}:${domain}`).digest('base64url').slice(0, 32);
}

/**
 * What a TXT lookup found (the port; services/control-plane/src/dns-txt.ts is the adapter):
 * the records' values (each record's strings joined), none (no such name, or no TXT there),
 * or unavailable (no answer in time, a failing or refusing server).
 */
export type TxtAnswer = { kind: 'records'; values: string[] } | { kind: 'none' } | { kind: 'unavailable'; reason: string };
export type TxtLookup = (name: string) => Promise<TxtAnswer>;
