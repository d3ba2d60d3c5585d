import { createHmac } from 'node:crypto';

// The DNS proof of a domain (POST /v1/orgs/{org_id}/domains/{domain}/verify;
// the spec names the route and its codes, Floe chose the record): the
// organisation publishes a TXT record `_floe-challenge.<domain>` whose value
// is `floe-domain-verification=<token>`. The token is an HMAC of the
// organisation and the domain under a key derived from the deployment's
// bootstrap secret, so it needs no stored row, is the same on every replica
// and at every asking, and no other organisation can compute it for itself.
// Rotating FLOE_BOOTSTRAP_SECRET changes every token: a record published and
// not yet verified must be published again; claims already made stay.

export const CHALLENGE_LABEL = '_floe-challenge';
export const CHALLENGE_VALUE_PREFIX = 'floe-domain-verification=';

/** The key tokens are made under: separate in purpose from every other use of the bootstrap secret. Null: no secret, no DNS proof. */
export function domainProofKey(bootstrapSecret: string | undefined): Buffer | null {
  return bootstrapSecret ? createHmac('sha256', 'floe domain verification v1').update(bootstrapSecret).digest() : null;
}

export interface DnsChallenge {
  type: 'TXT';
  name: string;
  value: string;
}

/** The record that proves `domain` (already normalised: lower case, no trailing dot) belongs to organisation `orgId`. */
export function dnsChallenge(key: Buffer, orgId: string, domain: string): DnsChallenge {
  const token = createHmac('sha256', key).update(`domain-verification:${orgId}:${domain}`).digest('base64url').slice(0, 32);
  return { type: 'TXT', name: `${CHALLENGE_LABEL}.${domain}`, value: `${CHALLENGE_VALUE_PREFIX}${token}` };
}

/**
 * What a TXT lookup found (the port; services/control-plane/src/dns-txt.ts is the adapter):
 * the records' values (each record's strings joined), none (no such name, or no TXT there),
 * or unavailable (no answer in time, a failing or refusing server).
 */
export type TxtAnswer = { kind: 'records'; values: string[] } | { kind: 'none' } | { kind: 'unavailable'; reason: string };
export type TxtLookup = (name: string) => Promise<TxtAnswer>;
