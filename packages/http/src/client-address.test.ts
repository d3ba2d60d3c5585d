import express from 'express';
import request from 'supertest';
import {
  GATEWAY_PROOF_HEADER, NO_FORWARDING, TrustedHops, canonicalAddress, clientAddress, clientAddressFor, gatewayProofKey,
  resolveClientAddress, signGatewayProof, verifyGatewayProof,
} from './client-address';

describe('canonicalAddress', () => {
  test.each([
    ['192.0.2.1', '192.0.2.1'],
    [' 192.0.2.1 ', '192.0.2.1'],
    ['192.0.2.1:8443', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:c000:0201', '192.0.2.1'],
    ['0:0:0:0:0:ffff:192.0.2.1', '192.0.2.1'],
    ['[::ffff:192.0.2.1]:80', '192.0.2.1'],
    ['::1', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:0:0:0:2:1', '2001:db8::2:1'],
    ['2001:db8::', '2001:db8::'],
    ['2001:0db8:0001:0000:0000:0000:0000:0001', '2001:db8:1::1'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['[2001:db8::7]:443', '2001:db8::7'],
    ['::', '::'],
  ])('%s is %s', (raw, canonical) => {
    expect(canonicalAddress(raw)).toBe(canonical);
  });

  test.each(['', 'unknown', 'evil.example.com', '256.1.1.1', '1.2.3', '1.2.3.4.5', '::g', '1.2.3.4, 5.6.7.8', '2001:db8::1::2'])('%j is not an address', (raw) => {
    expect(canonicalAddress(raw)).toBeNull();
  });
});

describe('TrustedHops', () => {
  test('none trusts nothing', () => {
    expect(TrustedHops.none().contains('127.0.0.1')).toBe(false);
    expect(TrustedHops.none().contains('::1')).toBe(false);
  });

  test('IPv4 addresses and CIDRs, matched also in their IPv4-mapped spelling', () => {
    const hops = TrustedHops.parse(['10.0.0.0/8', '192.0.2.7', '172.16.0.0/12']);
    expect(hops.contains('10.200.3.4')).toBe(true);
    expect(hops.contains('::ffff:10.200.3.4')).toBe(true);
    expect(hops.contains('11.0.0.1')).toBe(false);
    expect(hops.contains('192.0.2.7')).toBe(true);
    expect(hops.contains('192.0.2.8')).toBe(false);
    expect(hops.contains('172.31.255.255')).toBe(true);
    expect(hops.contains('172.32.0.0')).toBe(false);
    expect(hops.contains('not-an-address')).toBe(false);
    // An IPv4 range never matches an IPv6 address, and the reverse.
    expect(hops.contains('::a00:1')).toBe(false);
  });

  test('IPv6 CIDRs, a /0, odd prefix lengths, and an IPv4-mapped range', () => {
    const hops = TrustedHops.parse(['2001:db8::/32', 'fd00::/7', '::ffff:198.51.100.0/120']);
    expect(hops.contains('2001:db8:ffff::1')).toBe(true);
    expect(hops.contains('2001:db9::1')).toBe(false);
    expect(hops.contains('fdff::1')).toBe(true);
    expect(hops.contains('fe00::1')).toBe(false);
    expect(hops.contains('198.51.100.200')).toBe(true);
    expect(hops.contains('198.51.101.1')).toBe(false);
    expect(TrustedHops.parse(['0.0.0.0/0']).contains('203.0.113.9')).toBe(true);
    expect(TrustedHops.parse(['0.0.0.0/0']).contains('2001:db8::1')).toBe(false);
    expect(TrustedHops.parse(['::1']).contains('0:0:0:0:0:0:0:1')).toBe(true);
  });

  test.each(['loopback', 'true', '10.0.0.0/33', '2001:db8::/129', '10.0.0.0/-1', '10.0.0.0/8/8', '10.0.0.0/x', '/8', '::ffff:10.0.0.0/95'])('%j is refused', (entry) => {
    expect(() => TrustedHops.parse([entry])).toThrow(/FLOE_TRUST_PROXY/);
  });
});

describe('the gateway proof', () => {
  const key = gatewayProofKey('a-bootstrap-secret-of-some-length')!;
  const now = Date.parse('2026-11-24T12:00:00Z');

  test('signs one address at one time; verifies only that address, within the skew, under that key', () => {
    const proof = signGatewayProof(key, '203.0.113.5', now);
    expect(proof).toMatch(/^v1\.\d+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyGatewayProof(key, proof, '203.0.113.5', now)).toBe(true);
    expect(verifyGatewayProof(key, proof, '203.0.113.5', now + 59_000)).toBe(true);
    expect(verifyGatewayProof(key, proof, '203.0.113.5', now + 61_000)).toBe(false);
    expect(verifyGatewayProof(key, proof, '203.0.113.5', now - 61_000)).toBe(false);
    expect(verifyGatewayProof(key, proof, '203.0.113.6', now)).toBe(false);
    expect(verifyGatewayProof(gatewayProofKey('another-bootstrap-secret-entirely')!, proof, '203.0.113.5', now)).toBe(false);
    expect(verifyGatewayProof(key, proof.replace(/^v1\.(\d+)/, (_m, t) => `v1.${Number(t) + 1}`), '203.0.113.5', now)).toBe(false);
    expect(verifyGatewayProof(key, 'garbage', '203.0.113.5', now)).toBe(false);
    expect(gatewayProofKey(undefined)).toBeNull();
  });
});

describe('resolveClientAddress', () => {
  const key = gatewayProofKey('a-bootstrap-secret-of-some-length')!;
  const lb = TrustedHops.parse(['10.0.0.0/8']);

  test('without named hops X-Forwarded-For is ignored, from loopback and private peers too', () => {
    for (const peer of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.1.2.3', 'fd00::1', '169.254.0.1']) {
      expect(resolveClientAddress(NO_FORWARDING, { peer, forwardedFor: '198.51.100.77', proof: undefined })).toBe(canonicalAddress(peer));
    }
  });

  test('from a named hop: the rightmost entry that is not a named hop', () => {
    const o = { trustedHops: lb, proofKey: null };
    expect(resolveClientAddress(o, { peer: '::ffff:10.0.0.5', forwardedFor: '198.51.100.77', proof: undefined })).toBe('198.51.100.77');
    // A client's own entries sit left of what the hop appended: ignored.
    expect(resolveClientAddress(o, { peer: '10.0.0.5', forwardedFor: '192.0.2.66, 203.0.113.9', proof: undefined })).toBe('203.0.113.9');
    // Two named hops in a row pass the walk on.
    expect(resolveClientAddress(o, { peer: '10.0.0.5', forwardedFor: '192.0.2.66, 203.0.113.9, 10.9.9.9', proof: undefined })).toBe('203.0.113.9');
    // Everyone named: the leftmost.
    expect(resolveClientAddress(o, { peer: '10.0.0.5', forwardedFor: '10.1.1.1, 10.2.2.2', proof: undefined })).toBe('10.1.1.1');
    // No header: the hop itself.
    expect(resolveClientAddress(o, { peer: '10.0.0.5', forwardedFor: undefined, proof: undefined })).toBe('10.0.0.5');
    // An entry that is no address ends the walk at the hop that passed it on.
    expect(resolveClientAddress(o, { peer: '10.0.0.5', forwardedFor: 'nonsense', proof: undefined })).toBe('10.0.0.5');
    expect(resolveClientAddress(o, { peer: '10.0.0.5', forwardedFor: '198.51.100.1, nonsense, 10.3.3.3', proof: undefined })).toBe('10.3.3.3');
    // IPv6 and IPv4-mapped entries come out in one spelling.
    expect(resolveClientAddress(o, { peer: '10.0.0.5', forwardedFor: '[2001:DB8::0:1]:4711', proof: undefined })).toBe('2001:db8::1');
    expect(resolveClientAddress(o, { peer: '10.0.0.5', forwardedFor: '::ffff:203.0.113.9', proof: undefined })).toBe('203.0.113.9');
    // A peer outside the named hops: the header is ignored.
    expect(resolveClientAddress(o, { peer: '198.51.100.200', forwardedFor: '203.0.113.9', proof: undefined })).toBe('198.51.100.200');
  });

  test('behind the gateway: its valid proof makes its one forwarded address the caller; anything else falls back to the rule', () => {
    const o = { trustedHops: TrustedHops.none(), proofKey: key };
    const proof = signGatewayProof(key, '203.0.113.5');
    expect(resolveClientAddress(o, { peer: '10.0.0.2', forwardedFor: '203.0.113.5', proof })).toBe('203.0.113.5');
    expect(resolveClientAddress(o, { peer: '10.0.0.2', forwardedFor: '::ffff:203.0.113.5', proof })).toBe('203.0.113.5');
    expect(resolveClientAddress(o, { peer: '10.0.0.2', forwardedFor: '203.0.113.6', proof })).toBe('10.0.0.2');
    expect(resolveClientAddress(o, { peer: '10.0.0.2', forwardedFor: '198.51.100.1, 203.0.113.5', proof })).toBe('10.0.0.2');
    expect(resolveClientAddress(o, { peer: '10.0.0.2', forwardedFor: '203.0.113.5', proof: 'v1.1.AAAA' })).toBe('10.0.0.2');
    expect(resolveClientAddress(o, { peer: '10.0.0.2', forwardedFor: '203.0.113.5', proof: undefined })).toBe('10.0.0.2');
    // At the public edge a proof means nothing.
    expect(resolveClientAddress(NO_FORWARDING, { peer: '10.0.0.2', forwardedFor: '203.0.113.5', proof })).toBe('10.0.0.2');
  });

  test('a peer that is no address is unknown', () => {
    expect(resolveClientAddress(NO_FORWARDING, { peer: undefined, forwardedFor: '203.0.113.5', proof: undefined })).toBe('unknown');
  });
});

describe('clientAddressFor and the middleware', () => {
  test('roles: the public edge takes no proof; a service behind the gateway does; both parse FLOE_TRUST_PROXY', () => {
    const config = { trustProxy: ['10.0.0.0/8'], bootstrapSecret: 'a-bootstrap-secret-of-some-length' };
    expect(clientAddressFor(config, 'public-edge').proofKey).toBeNull();
    expect(clientAddressFor(config, 'behind-gateway').proofKey).toEqual(gatewayProofKey(config.bootstrapSecret));
    expect(clientAddressFor(config, 'public-edge').trustedHops.contains('10.1.1.1')).toBe(true);
    expect(() => clientAddressFor({ trustProxy: ['loopback'], bootstrapSecret: undefined }, 'public-edge')).toThrow(/FLOE_TRUST_PROXY/);
  });

  test('sets req.ip over a real socket: the loopback peer, whatever X-Forwarded-For says, unless it is a named hop or the proof is valid', async () => {
    const key = gatewayProofKey('a-bootstrap-secret-of-some-length')!;
    const app = (o: Parameters<typeof clientAddress>[0]) => express().use(clientAddress(o)).get('/ip', (req, res) => { res.json({ ip: req.ip }); });
    const plain = await request(app(NO_FORWARDING)).get('/ip').set('X-Forwarded-For', '203.0.113.5');
    expect(['127.0.0.1', '::1']).toContain(plain.body.ip);
    const named = await request(app({ trustedHops: TrustedHops.parse(['127.0.0.1', '::1']), proofKey: null })).get('/ip').set('X-Forwarded-For', '203.0.113.5');
    expect(named.body.ip).toBe('203.0.113.5');
    const proven = await request(app({ trustedHops: TrustedHops.none(), proofKey: key })).get('/ip')
      .set('X-Forwarded-For', '203.0.113.5').set(GATEWAY_PROOF_HEADER, signGatewayProof(key, '203.0.113.5'));
    expect(proven.body.ip).toBe('203.0.113.5');
  });
});
