import { createHmac } from 'node:crypto';
import request from 'supertest';
import { joinPrivateStackEnv } from '../../scripts/lib/private-stack';
import { startDnsServer, type TestDnsServer } from '../support/dns-server';
import { until } from '../support/poll';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';
import { bearer, expectError, gateway, sql, stack } from './helpers';
import { newMember, newOrgWithAdmin, uniq, type TestOrg } from './control-plane-helpers';
import type { NewPrincipal } from './helpers';

// Spec: POST /v1/orgs/{org_id}/domains/{domain}/verify (the DNS proof of a
// domain; Floe's record: TXT `_floe-challenge.<domain>` =
// `floe-domain-verification=<token>`), and the claim route's refusal naming
// that record. The lookups go to a real DNS server on loopback
// (tests/support/dns-server.ts), which the stack's own control plane does not
// ask: this file runs control planes of its own on the stack's database and
// Redis with FLOE_DNS_SERVERS pointed at it, and calls them directly: one with
// the stack's secrets, one without its bootstrap secret. The token is stored
// with the organisation when the claim's refusal first names it, so the
// record named through the gateway is the one verified here, whatever secret
// each process holds.

let dns: TestDnsServer;
let controlPlanes: WorkerProcess[] = [];
let cpUrl: string;
/** The control plane without FLOE_BOOTSTRAP_SECRET (its catalog credential key given apart, as it must be then). */
let unkeyedUrl: string;

beforeAll(async () => {
  dns = await startDnsServer();
  const s = stack();
  const env: NodeJS.ProcessEnv = {
    ...process.env, ...joinPrivateStackEnv(s), FLOE_ENV: 'test', FLOE_LOG_LEVEL: 'warn', FLOE_DNS_SERVERS: dns.address,
    ...(s.smtp_url ? { FLOE_SMTP_URL: s.smtp_url } : {}),
  };
  const unkeyed: NodeJS.ProcessEnv = { ...env, FLOE_CREDENTIAL_KEY: env.FLOE_CREDENTIAL_KEY ?? s.bootstrap_secret };
  delete unkeyed.FLOE_BOOTSTRAP_SECRET;
  controlPlanes = [env, unkeyed].map((e) => startWorkerProcess('services/control-plane/src/main.ts', 'FLOE_CONTROL_PLANE_PORT', e));
  [cpUrl, unkeyedUrl] = await Promise.all(controlPlanes.map(async (p) => `http://127.0.0.1:${await p.port}`));
  for (const url of [cpUrl, unkeyedUrl]) {
    await until('the test\'s control plane to answer', async () => {
      const res = await request(url).get('/healthz').catch(() => null);
      return res?.status === 200 ? true : null;
    }, 60);
  }
}, 90_000);

afterAll(async () => {
  await Promise.all(controlPlanes.map((p) => p.stop()));
  await dns?.close();
});

type Admin = { org: TestOrg; admin: NewPrincipal };
const verify = (o: Admin, domain: string, key = o.admin.api_key, url = cpUrl) => request(url).post(`/v1/orgs/${o.org.org_id}/domains/${domain}/verify`).set(bearer(key));
const claim = (o: Admin, domain: string) => gateway().post(`/v1/orgs/${o.org.org_id}/domains`).set(bearer(o.admin.api_key)).send({ domain });
/** The record an organisation must publish, as the claim route's refusal names it. */
async function recordFor(o: Admin, domain: string): Promise<{ type: string; name: string; value: string }> {
  return expectError(await claim(o, domain), 409, 'domain_not_verified').dns_record as { type: string; name: string; value: string };
}
const newDomain = (what: string) => `${what}-${uniq()}${uniq()}.test`;

test('the claim\'s refusal names the TXT record; verify: 409 before it is published and for another value, 200 claimed with proof dns_txt once it is, audited once', async () => {
  const o = await newOrgWithAdmin();
  const domain = newDomain('dnsproof');

  // The claim route (through the gateway): no verified address on the domain → 409 with the record and the route to verify.
  const refusal = expectError(await claim(o, domain.toUpperCase()), 409, 'domain_not_verified');
  const record = refusal.dns_record as { type: string; name: string; value: string };
  expect(record).toEqual({ type: 'TXT', name: `_floe-challenge.${domain}`, value: expect.stringMatching(/^floe-domain-verification=[A-Za-z0-9_-]{32}$/) });
  expect(refusal).toMatchObject({ field: 'domain', verify: `POST /v1/orgs/${o.org.org_id}/domains/${domain}/verify`, remedy: expect.stringContaining('TXT') });
  // Stable: asked again, the same token, stored with the organisation.
  expect(await recordFor(o, domain)).toEqual(record);
  expect(await sql(`SELECT token FROM org_domain_challenges WHERE org_id = $1 AND domain = $2`, [o.org.org_id, domain]))
    .toEqual([{ token: record.value.replace('floe-domain-verification=', '') }]);

  // Nothing published: NXDOMAIN.
  const before = expectError(await verify(o, domain), 409, 'domain_not_verified');
  expect(before).toMatchObject({ field: 'domain', dns_record: record, found: [] });
  expect(dns.queries).toContain(record.name);

  // The name exists with another value (someone's typo, another organisation's token).
  dns.setTxt(record.name, 'floe-domain-verification=not-the-token', 'v=spf1 -all');
  expect(expectError(await verify(o, domain), 409, 'domain_not_verified')).toMatchObject({ dns_record: record, found: ['floe-domain-verification=not-the-token', 'v=spf1 -all'] });
  // The name exists with no TXT record (NODATA).
  dns.setTxt(record.name);
  expect(expectError(await verify(o, domain), 409, 'domain_not_verified')).toMatchObject({ found: [] });
  expect(await sql(`SELECT 1 FROM org_domains WHERE domain = $1`, [domain])).toEqual([]);

  // Published beside other records: claimed, verified by DNS (the path's domain in any case, with a trailing dot).
  dns.setTxt(record.name, 'v=spf1 -all', record.value);
  const ok = await verify(o, `${domain.toUpperCase()}.`);
  expect(ok.status).toBe(200);
  expect(ok.body).toEqual({
    org_id: o.org.org_id, domain, verified: true, proof: 'dns_txt', created: true, claimed_by: o.admin.principal_id, claimed_at: expect.any(String),
    dns_record: record, note: expect.any(String),
  });
  // Again: the same claim, not a new one.
  const again = await verify(o, domain);
  expect([again.status, again.body.created, again.body.claimed_at]).toEqual([200, false, ok.body.claimed_at]);

  expect(await sql(`SELECT org_id, claimed_by FROM org_domains WHERE domain = $1`, [domain])).toEqual([{ org_id: o.org.org_id, claimed_by: o.admin.principal_id }]);
  const events = await sql(`SELECT actor_id, org_id, target_type, data, request_id FROM audit_events WHERE action = 'org.domain_claim' AND target_id = $1`, [domain]);
  expect(events).toEqual([{ actor_id: o.admin.principal_id, org_id: o.org.org_id, target_type: 'domain', data: { proof: 'dns_txt' }, request_id: ok.headers['x-request-id'] }]);
  const audit = await gateway().get('/v1/audit').query({ action: 'org.domain_claim', org_id: o.org.org_id }).set(bearer(o.admin.api_key));
  expect(audit.body.events).toHaveLength(1);

  // Domain join can be switched on with it, as with a domain claimed by address.
  expect((await gateway().patch(`/v1/orgs/${o.org.org_id}`).set(bearer(o.admin.api_key)).send({ domain_join: true })).body.domain_join).toBe(true);
});

test('who may verify: 401 without a key, 404 org_not_found for another organisation\'s admin, 403 insufficient_role for a member; malformed and public domains 400', async () => {
  const o = await newOrgWithAdmin();
  const other = await newOrgWithAdmin();
  const member = await newMember(o.org, 'human', 'member');
  const domain = newDomain('who');
  dns.setTxt(`_floe-challenge.${domain}`, (await recordFor(o, domain)).value);

  const anon = await request(cpUrl).post(`/v1/orgs/${o.org.org_id}/domains/${domain}/verify`);
  expectError(anon, 401, 'unauthorized');
  expectError(await verify(o, domain, other.admin.api_key), 404, 'org_not_found');
  expect(expectError(await verify(o, domain, member.api_key), 403, 'insufficient_role')).toMatchObject({ role: 'member', needed: 'admin' });
  expect(await sql(`SELECT 1 FROM org_domains WHERE domain = $1`, [domain])).toEqual([]);

  expect(expectError(await verify(o, 'gmail.com'), 400, 'public_mail_domain')).toMatchObject({ field: 'domain' });
  for (const bad of ['not_a_domain', 'localhost', `${'a'.repeat(64)}.test`, '-x.test']) {
    expect(expectError(await verify(o, bad), 400, 'invalid_value')).toMatchObject({ field: 'domain' });
  }
  // Only POST.
  const get = await request(cpUrl).get(`/v1/orgs/${o.org.org_id}/domains/${domain}/verify`).set(bearer(o.admin.api_key));
  expect([get.status, get.headers.allow]).toEqual([405, 'POST']);

  // The admin still verifies it.
  expect((await verify(o, domain)).status).toBe(200);
});

test('a resolver that drops the query, fails or refuses: 503 dns_unavailable with retry_after_seconds, nothing claimed', async () => {
  const o = await newOrgWithAdmin();
  const domain = newDomain('outage');
  dns.setTxt(`_floe-challenge.${domain}`, (await recordFor(o, domain)).value);
  try {
    dns.mode = 'drop';
    const started = Date.now();
    const dropped = await verify(o, domain);
    // Short on purpose: the lookup gives up after about 5 s.
    expect(Date.now() - started).toBeLessThan(9000);
    expect(expectError(dropped, 503, 'dns_unavailable')).toMatchObject({ retry_after_seconds: 30, dns_record: { name: `_floe-challenge.${domain}` } });
    expect(dropped.headers['retry-after']).toBe('30');
    for (const mode of ['servfail', 'refused'] as const) {
      dns.mode = mode;
      expect(expectError(await verify(o, domain), 503, 'dns_unavailable')).toMatchObject({ retry_after_seconds: 30 });
    }
  } finally {
    dns.mode = 'answer';
  }
  expect(await sql(`SELECT 1 FROM org_domains WHERE domain = $1`, [domain])).toEqual([]);
  expect((await verify(o, domain)).status).toBe(200);
}, 60_000);

test('tokens are per organisation: one\'s record proves nothing for another; a domain claimed by one is 409 domain_claimed for the other, even with its own record', async () => {
  const first = await newOrgWithAdmin();
  const second = await newOrgWithAdmin();
  const domain = newDomain('rival');
  const a = await recordFor(first, domain);
  const b = await recordFor(second, domain);
  expect(b.name).toBe(a.name);
  expect(b.value).not.toBe(a.value);

  // Only the first organisation's record: the second is not verified by it.
  dns.setTxt(a.name, a.value);
  expect(expectError(await verify(second, domain), 409, 'domain_not_verified')).toMatchObject({ dns_record: b, found: [a.value] });
  expect((await verify(first, domain)).status).toBe(200);

  // The second publishes its own too: the domain is taken.
  dns.addTxt(a.name, b.value);
  expectError(await verify(second, domain), 409, 'domain_claimed');
  expect(await sql(`SELECT org_id FROM org_domains WHERE domain = $1`, [domain])).toEqual([{ org_id: first.org.org_id }]);
  expect(await sql(`SELECT org_id FROM audit_events WHERE action = 'org.domain_claim' AND target_id = $1`, [domain])).toEqual([{ org_id: first.org.org_id }]);
});

test('20 verifies at once from two organisations that both published their record: one organisation holds the domain, one claim, one audit event', async () => {
  const orgs = [await newOrgWithAdmin(), await newOrgWithAdmin()];
  const domain = newDomain('race');
  const records = await Promise.all(orgs.map((o) => recordFor(o, domain)));
  dns.setTxt(records[0].name, ...records.map((r) => r.value));

  const all = await Promise.all(Array.from({ length: 20 }, (_, i) => verify(orgs[i % 2], domain).then((res) => ({ org: orgs[i % 2], res }))));
  const [holder] = await sql<{ org_id: string }>(`SELECT org_id FROM org_domains WHERE domain = $1`, [domain]);
  expect(orgs.map((o) => o.org.org_id)).toContain(holder.org_id);
  for (const { org, res } of all) {
    if (org.org.org_id === holder.org_id) expect([res.status, res.body.org_id, res.body.proof]).toEqual([200, holder.org_id, 'dns_txt']);
    else expectError(res, 409, 'domain_claimed');
  }
  expect(all.filter(({ res }) => res.status === 200 && res.body.created === true)).toHaveLength(1);
  expect(await sql(`SELECT org_id, data FROM audit_events WHERE action = 'org.domain_claim' AND target_id = $1`, [domain])).toEqual([{ org_id: holder.org_id, data: { proof: 'dns_txt' } }]);
}, 60_000);

test('the stored token needs no bootstrap secret: a control plane without one verifies it; a record derived from the secret before tokens were stored still proves the domain where the secret is', async () => {
  // Stored: the control plane without the secret names the same record and verifies it (no 501).
  const o = await newOrgWithAdmin();
  const domain = newDomain('unkeyed');
  const record = await recordFor(o, domain);
  const unpublished = expectError(await verify(o, domain, o.admin.api_key, unkeyedUrl), 409, 'domain_not_verified');
  expect(unpublished).toMatchObject({ dns_record: record, found: [] });
  dns.setTxt(record.name, record.value);
  const ok = await verify(o, domain, o.admin.api_key, unkeyedUrl);
  expect([ok.status, ok.body.proof, ok.body.created, ok.body.dns_record]).toEqual([200, 'dns_txt', true, record]);

  // Derived: the token the secret gave before tokens were stored (this organisation, this domain; the formula as it was), published.
  const earlier = await newOrgWithAdmin();
  const old = newDomain('derived');
  const key = createHmac('sha256', 'floe domain verification v1').update(stack().bootstrap_secret).digest();
  const token = createHmac('sha256', key).update(`domain-verification:${earlier.org.org_id}:${old}`).digest('base64url').slice(0, 32);
  const derived = { type: 'TXT', name: `_floe-challenge.${old}`, value: `floe-domain-verification=${token}` };
  dns.setTxt(derived.name, derived.value);
  // Without the secret it proves nothing (the stored token, made now, is the record to publish).
  const refused = expectError(await verify(earlier, old, earlier.admin.api_key, unkeyedUrl), 409, 'domain_not_verified');
  expect(refused).toMatchObject({ found: [derived.value] });
  expect((refused.dns_record as { value: string }).value).not.toBe(derived.value);
  // With it, it does, and the answer names the record found.
  const proven = await verify(earlier, old);
  expect([proven.status, proven.body.proof, proven.body.dns_record]).toEqual([200, 'dns_txt', derived]);
  expect(await sql(`SELECT org_id FROM org_domains WHERE domain = $1`, [old])).toEqual([{ org_id: earlier.org.org_id }]);
}, 60_000);
