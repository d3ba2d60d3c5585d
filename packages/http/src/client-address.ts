import { createHmac, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
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

interface Parsed {
  bytes: Uint8Array;
  v4: boolean;
}

/** An address in bytes: 4 for IPv4 (also IPv4-mapped IPv6), 16 for IPv6; null when it is not an address. */
function parseAddress(raw: string): Parsed | null {
  let s = raw.trim();
  if (s.startsWith('[') && s.includes(']')) s = s.slice(1, s.indexOf(']')); // [v6]:port
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (isIP(s) === 4) return { bytes: Uint8Array.from(s.split('.').map(Number)), v4: true };
  if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(s)) return parseAddress(s.slice(0, s.lastIndexOf(':'))); // v4:port
  if (isIP(s) !== 6) return null;
  const bytes = ipv6Bytes(s);
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? { bytes: bytes.slice(12), v4: true } : { bytes, v4: false };
}

/** The 16 bytes of an IPv6 address node:net already accepted (`::` and a dotted IPv4 tail allowed). */
function ipv6Bytes(s: string): Uint8Array {
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    tail = s.slice(lastColon + 1).split('.').map(Number);
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, null];
  const groups = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const h = groups(head);
  const r = rest === null ? [] : groups(rest);
  const all = rest === null ? h : [...h, ...Array(8 - h.length - r.length).fill(0), ...r];
  const out = new Uint8Array(16);
  all.forEach((g, i) => { out[i * 2] = g >> 8; out[i * 2 + 1] = g & 0xff; });
  if (tail.length) out.set(tail, 12);
  return out;
}

function format(p: Parsed): string {
  if (p.v4) return Array.from(p.bytes).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((p.bytes[i] << 8) | p.bytes[i + 1]);
  // RFC 5952: the longest run of two or more zero groups (the first of equals) becomes `::`.
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) { i += 1; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

/** One spelling of an address (see the rule above); null when `raw` is not an address. */
export function canonicalAddress(raw: string): string | null {
  const p = parseAddress(raw);
  return p ? format(p) : null;
}

interface Range {
  bytes: Uint8Array;
  v4: boolean;
  prefix: number;
}

/** The hops a deployment trusts to report the caller's address: FLOE_TRUST_PROXY's entries. */
export class TrustedHops {
  private constructor(private readonly ranges: Range[], readonly entries: string[]) {}

  static none(): TrustedHops {
    return new TrustedHops([], []);
  }

  /** Addresses or CIDRs (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`); throws on anything else. */
  static parse(entries: string[]): TrustedHops {
    const ranges = entries.map((entry) => {
      const [addr, bits, extra] = entry.trim().split('/');
      const p = addr ? parseAddress(addr) : null;
      if (!p || extra !== undefined || addr.includes('[')) throw new Error(`FLOE_TRUST_PROXY: ${JSON.stringify(entry)} is not an address or CIDR`);
      // An IPv4-mapped IPv6 range (::ffff:10.0.0.0/104) is the IPv4 range it maps.
      const mappedOffset = p.v4 && isIP(addr.split('%')[0]) === 6 ? 96 : 0;
      const max = p.v4 ? 32 : 128;
      const prefix = bits === undefined ? max : Number(bits) - mappedOffset;
      if (bits !== undefined && (!/^\d{1,3}$/.test(bits) || prefix < 0 || prefix > max)) {
        throw new Error(`FLOE_TRUST_PROXY: ${JSON.stringify(entry)} has a prefix length out of range`);
      }
      return { bytes: p.bytes, v4: p.v4, prefix };
    });
    return new TrustedHops(ranges, entries.map((e) => e.trim()));
  }

  contains(address: string): boolean {
    const p = parseAddress(address);
    if (!p) return false;
    return this.ranges.some((r) => r.v4 === p.v4 && samePrefix(r.bytes, p.bytes, r.prefix));
  }
}

function samePrefix(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  for (let i = 0; bits > 0; i += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((a[i] & mask) !== (b[i] & mask)) return false;
  }
  return true;
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
