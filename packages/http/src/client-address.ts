import { createHmac, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { RequestHandler } from 'express';
import type { FloeConfig } from '@floe/config';

// The caller's address (req.ip) as every deployable reads it, and the one
// place that decides when X-Forwarded-For may be believed. Rate limits (wrong
// secrets, per-address budgets), audit and session records key on it, so a
// header the caller writes must never choose it. The rule:
//
//   1. A request carrying a valid gateway proof (X-Floe-Gateway-Proof, an
//      HMAC under a key derived from the deployment's bootstrap secret over a
//      timestamp and the forwarded address) came through Floe's own gateway:
//      its X-Forwarded-For, a single address the gateway set, is the caller.
//      Only services behind the gateway accept proofs; the gateway ignores
//      them from its clients.
//   2. Otherwise X-Forwarded-For is read only when the peer (the TCP
//      connection's address) is a hop the deployment names in
//      FLOE_TRUST_PROXY (addresses or CIDRs): walking from the right, every
//      entry that is itself a named hop is skipped and the first that is not
//      is the caller.
//   3. Otherwise the peer is the caller; X-Forwarded-For is ignored.
//
// Addresses are compared and reported in one spelling: IPv4 dotted quads
// (IPv4-mapped IPv6 such as ::ffff:192.0.2.1 becomes 192.0.2.1), IPv6 in the
// RFC 5952 compressed form without a zone.

export const GATEWAY_PROOF_HEADER = 'x-floe-gateway-proof';
/** How far a proof's timestamp may be from the verifier's clock (replicas' clocks and the hop's latency). */
export const GATEWAY_PROOF_MAX_SKEW_SECONDS = 60;

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * An address (IPv4-mapped IPv6 read as the IPv4 it maps), from the forms a
 * socket or X-Forwarded-For gives: brackets, a port, a zone are dropped; null
 * when it is not an address. node:net decides what an address is (ipaddr.js
 * also reads forms such as 01.2.3.4), ipaddr.js reads and writes it.
 */
function parseAddress(raw: string): Address | null {
  let s = raw.trim();
  if (s.startsWith('[') && s.includes(']')) s = s.slice(1, s.indexOf(']')); // [v6]:port
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(':')); // v4:port
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  return isIP(s) ? ipaddr.process(s) : null;
}

/** One spelling of an address (see the rule above); null when `raw` is not an address. */
export function canonicalAddress(raw: string): string | null {
  const a = parseAddress(raw);
  if (!a) return null;
  return a.kind() === 'ipv6' ? (a as ipaddr.IPv6).toRFC5952String() : a.toString();
}

/** The hops a deployment trusts to report the caller's address: FLOE_TRUST_PROXY's entries. */
export class TrustedHops {
  private constructor(private readonly ranges: Array<[Address, number]>, readonly entries: string[]) {}

  static none(): TrustedHops {
    return new TrustedHops([], []);
  }

  /** Addresses or CIDRs (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`); throws on anything else. */
  static parse(entries: string[]): TrustedHops {
    const ranges = entries.map((entry): [Address, number] => {
      const [addr, bits, extra] = entry.trim().split('/');
      const a = addr && !addr.includes('[') ? parseAddress(addr) : null;
      if (!a || extra !== undefined) throw new Error(`FLOE_TRUST_PROXY: ${JSON.stringify(entry)} is not an address or CIDR`);
      // An IPv4-mapped IPv6 range (::ffff:10.0.0.0/104) is the IPv4 range it maps.
      const mappedOffset = a.kind() === 'ipv4' && isIP(addr.split('%')[0]) === 6 ? 96 : 0;
      const max = a.kind() === 'ipv4' ? 32 : 128;
      const prefix = bits === undefined ? max : Number(bits) - mappedOffset;
      if (bits !== undefined && (!/^\d{1,3}$/.test(bits) || prefix < 0 || prefix > max)) {
        throw new Error(`FLOE_TRUST_PROXY: ${JSON.stringify(entry)} has a prefix length out of range`);
      }
      return [a, prefix];
    });
    return new TrustedHops(ranges, entries.map((e) => e.trim()));
  }

  contains(address: string): boolean {
    const a = parseAddress(address);
    if (!a) return false;
    return this.ranges.some(([range, bits]) => range.kind() === a.kind() && (a as ipaddr.IPv4).match(range as ipaddr.IPv4, bits));
  }
}

// ---- the gateway's proof ---------------------------------------------------

/** The proof key: derived from the bootstrap secret every deployable has, never the secret itself. */
export function gatewayProofKey(bootstrapSecret: string | undefined): Buffer | null {
  return bootstrapSecret ? createHmac('sha256', 'floe gateway proof v1').update(bootstrapSecret).digest() : null;
}

function mac(key: Buffer, at: number, address: string): Buffer {
  return createHmac('sha256', key).update(`v1\0${at}\0${address}`).digest();
}

/** `v1.<unix seconds>.<base64url HMAC-SHA256(key, "v1\0<seconds>\0<address>")>` for one forwarded address. */
export function signGatewayProof(key: Buffer, address: string, nowMs = Date.now()): string {
  const at = Math.floor(nowMs / 1000);
  return `v1.${at}.${mac(key, at, address).toString('base64url')}`;
}

export function verifyGatewayProof(key: Buffer, proof: string, address: string, nowMs = Date.now()): boolean {
  const m = /^v1\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(proof);
  if (!m) return false;
  const at = Number(m[1]);
  if (Math.abs(nowMs / 1000 - at) > GATEWAY_PROOF_MAX_SKEW_SECONDS) return false;
  const given = Buffer.from(m[2], 'base64url');
  const expected = mac(key, at, address);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// ---- the rule --------------------------------------------------------------

export interface ClientAddressOptions {
  /** FLOE_TRUST_PROXY: peers whose X-Forwarded-For is read. */
  trustedHops: TrustedHops;
  /** The gateway proof key a service behind the gateway accepts; null at the public edge (the gateway) or without a bootstrap secret. */
  proofKey: Buffer | null;
}

export const NO_FORWARDING: ClientAddressOptions = { trustedHops: TrustedHops.none(), proofKey: null };

/**
 * A deployable's options from its config. `public-edge`: reached by clients
 * (the gateway, the catalog), FLOE_TRUST_PROXY's hops only. `behind-gateway`:
 * reached through the gateway (identity, control plane, and the ingest host,
 * which clients also reach directly), the gateway's proof as well.
 */
export function clientAddressFor(config: Pick<FloeConfig, 'trustProxy' | 'bootstrapSecret'>, role: 'public-edge' | 'behind-gateway'): ClientAddressOptions {
  return {
    trustedHops: TrustedHops.parse(config.trustProxy),
    proofKey: role === 'behind-gateway' ? gatewayProofKey(config.bootstrapSecret) : null,
  };
}

export interface ForwardingFacts {
  /** The TCP peer (socket.remoteAddress). */
  peer: string | undefined;
  /** X-Forwarded-For as received (several headers joined with commas). */
  forwardedFor: string | undefined;
  /** X-Floe-Gateway-Proof as received. */
  proof: string | undefined;
}

/** The caller's address by the rule above; 'unknown' when even the peer is not an address. */
export function resolveClientAddress(o: ClientAddressOptions, f: ForwardingFacts, nowMs = Date.now()): string {
  const peer = (f.peer ? canonicalAddress(f.peer) : null) ?? 'unknown';
  const chain = (f.forwardedFor ?? '').split(',').map((s) => s.trim()).filter(Boolean);

  if (o.proofKey && f.proof && chain.length === 1) {
    const forwarded = canonicalAddress(chain[0]);
    if (forwarded && verifyGatewayProof(o.proofKey, f.proof, forwarded, nowMs)) return forwarded;
  }

  if (!o.trustedHops.contains(peer)) return peer;
  // The peer is a named hop: each entry was appended by the hop to its right.
  // Entries that are named hops themselves pass the walk on; the first that is
  // not is the caller. An entry that is not an address stops the walk at the
  // hop that passed it on: it was not written by anyone the deployment trusts.
  let caller = peer;
  for (let i = chain.length - 1; i >= 0; i -= 1) {
    const entry = canonicalAddress(chain[i]);
    if (!entry) break;
    caller = entry;
    if (!o.trustedHops.contains(entry)) break;
  }
  return caller;
}

/**
 * Middleware that sets req.ip by the rule. Express's own 'trust proxy' is set
 * from the same hops (app.ts), so req.protocol honours X-Forwarded-Proto
 * only from them; req.ip is replaced because Express cannot see the proof.
 */
export function clientAddress(o: ClientAddressOptions): RequestHandler {
  return (req, _res, next) => {
    const ip = resolveClientAddress(o, {
      peer: req.socket.remoteAddress,
      forwardedFor: req.get('x-forwarded-for'),
      proof: req.get(GATEWAY_PROOF_HEADER),
    });
    Object.defineProperty(req, 'ip', { value: ip, configurable: true, enumerable: true, writable: false });
    next();
  };
}

/** Express 'trust proxy' as a function of the same hops. */
export function trustProxyFn(hops: TrustedHops): (address: string) => boolean {
  return (address) => hops.contains(address);
}
