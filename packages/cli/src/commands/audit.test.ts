import type { AuditEvent } from '../audit-follow';
import { EXIT_OK, EXIT_USAGE } from '../errors';
import { run } from '../program';
import { fakeIo } from '../test-io';
import { parseSince } from './audit';

const event = (id: string, at: string, action = 'warehouse.create'): AuditEvent => ({
  id, action, created_at: at, actor_id: 'p_1', actor_kind: 'human', org_id: 'org_1', request_id: null, target_type: 'warehouse', target_id: 'w1', data: {},
});

test('parseSince takes spans and ISO times only', () => {
  for (const ok of ['30m', '24h', '7d', '90s', '2026-11-27', '2026-11-27T10:00:00Z']) expect(parseSince(ok)).toBe(ok);
  for (const bad of ['24', 'h', '1w', 'yesterday', '2026-13-45']) expect(() => parseSince(bad)).toThrow();
});

// Whole command lines against a stand-in for Floe: which organisation the log is asked for.
describe('floe audit asks for the organisation as its admin', () => {
  let queries: URLSearchParams[];
  let role: 'admin' | 'member';
  const realFetch = globalThis.fetch;
  afterAll(() => { globalThis.fetch = realFetch; });
  beforeEach(() => {
    queries = [];
    globalThis.fetch = (async (input: RequestInfo | URL) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
      if (url.pathname === '/v1/orgs') return json({ count: 1, organizations: [{ org_id: 'org_1', handle: 'acme', name: 'Acme', role, joined_via: 'creator' }] });
      queries.push(url.searchParams);
      const orgId = url.searchParams.get('org_id');
      return json({ events: [event('1', '2026-11-27T10:00:00.000Z')], count: 1, limit: 100, since: null, org_id: orgId, scope: orgId && role === 'admin' ? 'organisation' : 'own' });
    }) as typeof fetch;
  });

  // Lines as printed (not joined): the tests read them one by one.
  async function floe(argv: string[]) {
    const { io, out, err } = fakeIo({ env: { FLOE_API_KEY: 'al_live_k_s', FLOE_BASE_URL: 'http://floe.test' } });
    const code = await run(argv, io);
    return { code, out, err };
  }

  test('an admin of the only organisation reads its events', async () => {
    role = 'admin';
    const r = await floe(['audit', '--since', '7d', '--action', 'sink.*', '--limit', '50']);
    expect(r.code).toBe(EXIT_OK);
    expect(Object.fromEntries(queries[0])).toEqual({ org_id: 'org_1', since: '7d', action: 'sink.*', limit: '50' });
    expect(r.out[0].split('\t').slice(0, 3)).toEqual(['2026-11-27 10:00:00Z', 'p_1', 'warehouse.create']);
  });

  test('a member reads their own; --org is sent as named', async () => {
    role = 'member';
    await floe(['audit']);
    expect(queries[0].has('org_id')).toBe(false);
    await floe(['audit', '--org', 'acme']);
    expect(queries[1].get('org_id')).toBe('acme');
  });

  test('--json prints one event per line', async () => {
    role = 'admin';
    const r = await floe(['audit', '--json']);
    expect(r.out).toHaveLength(1);
    expect(JSON.parse(r.out[0])).toMatchObject({ id: '1', action: 'warehouse.create' });
  });

  test('bad filters are usage errors, before any call', async () => {
    for (const argv of [['audit', '--since', 'yesterday'], ['audit', '--limit', '0'], ['audit', '--limit', '1001'], ['audit', '--follow', '--interval', '0']]) {
      expect((await floe(argv)).code).toBe(EXIT_USAGE);
    }
    expect(queries).toEqual([]);
  });
});
