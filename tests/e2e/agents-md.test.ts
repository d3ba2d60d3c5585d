import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { newCatalogOf, type Served } from '../support/oauth';
import { accessFor, callTool, clientDocuments, mcpClient, personWithSession, refusedWith, type Person } from '../support/mcp';
import { bearer, catalogWithCallers, expectError, gateway, newProject, newWarehouse, uniq, type CatalogCallers } from './control-plane-helpers';
import { sql } from './helpers';

// Spec: PUT /v1/warehouses/{id}/agents-md (error index: 409
// `agents_md_changed`, 413 `too_large`), with Floe's GET and shapes
// (docs/api.md "Instructions for assistants"): a catalog's instructions for AI
// assistants, compare-and-set by etag (body or If-Match), and the MCP tool
// `catalog_instructions` that serves them with the token's grants.

const LIMIT = 64 * 1024;

let c: CatalogCallers;
/** A member agent granted write on the catalog (not an admin). */
let writer: { api_key: string; agent_id: string };
const path = (id = c.w.warehouse_id) => `/v1/warehouses/${id}/agents-md`;
const put = (body: unknown, as = c.admin.api_key, id = c.w.warehouse_id) => gateway().put(path(id)).set(bearer(as)).send(body as object);
const get = (as = c.reader.api_key, id = c.w.warehouse_id) => gateway().get(path(id)).set(bearer(as));
const audits = (id: string) =>
  sql<{ actor_id: string; data: unknown }>(`SELECT actor_id, data FROM audit_events WHERE action = 'warehouse.update' AND target_id = $1 ORDER BY id`, [id]);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ETAG = /^[0-9a-f]{24}$/;

beforeAll(async () => {
  c = await catalogWithCallers('amd');
  const [{ org_id: orgId }] = await sql<{ org_id: string }>('SELECT org_id FROM warehouses WHERE id = $1', [c.w.warehouse_id]);
  const agent = await gateway().post(`/v1/orgs/${orgId}/agents`).set(bearer(c.admin.api_key))
    .send({ name: `amd-${uniq()}`, grants: [{ warehouse_id: c.w.warehouse_id, level: 'write' }] });
  expect(agent.status).toBe(201);
  writer = agent.body;
}, 60_000);

describe('PUT and GET /v1/warehouses/{id}/agents-md', () => {
  test('none yet: GET answers agents_md null; the catalog\'s GET too', async () => {
    const res = await get();
    expect([res.status, res.body]).toEqual([200, { warehouse_id: c.w.warehouse_id, name: c.w.name, agents_md: null }]);
    expect(res.headers.etag).toBeUndefined();
    const w = await gateway().get(`/v1/warehouses/${c.w.warehouse_id}`).set(bearer(c.reader.api_key));
    expect([w.status, w.body.agents_md]).toEqual([200, null]);
  });

  test('write (only if none exists), read back by a read holder, bytes in UTF-8, ETag header; audited as warehouse.update', async () => {
    const content = '# Lake\n\nTables in `events` are append-only. Ne touchez pas à `raw`.\n';
    const bytes = Buffer.byteLength(content, 'utf8');
    expect(bytes).toBeGreaterThan(content.length);
    const res = await put({ content, etag: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      warehouse_id: c.w.warehouse_id, name: c.w.name, previous_etag: null,
      agents_md: { content, etag: expect.stringMatching(ETAG), bytes, updated_at: expect.stringMatching(ISO), updated_by: c.admin.principal_id },
    });
    const etag = res.body.agents_md.etag as string;
    expect(res.headers.etag).toBe(`"${etag}"`);

    const got = await get();
    expect([got.status, got.body]).toEqual([200, { warehouse_id: c.w.warehouse_id, name: c.w.name, agents_md: res.body.agents_md }]);
    expect(got.headers.etag).toBe(`"${etag}"`);
    // A client holding this version is told it is current.
    expect((await get().set('If-None-Match', `"${etag}"`)).status).toBe(304);
    // By name too.
    expect((await get(c.reader.api_key, c.w.name)).body.agents_md.etag).toBe(etag);
    // The catalog's GET carries the version, size and time, never the text.
    const w = await gateway().get(`/v1/warehouses/${c.w.warehouse_id}`).set(bearer(c.reader.api_key));
    expect(w.body.agents_md).toEqual({ etag, bytes, updated_at: res.body.agents_md.updated_at });

    expect(await audits(c.w.warehouse_id)).toEqual([{
      actor_id: c.admin.principal_id,
      data: { changes: { agents_md: { bytes, etag } }, previous: { agents_md: { bytes: 0, etag: null } } },
    }]);
  });

  test('replace with the etag in the body or in If-Match (the header wins); a stale one is 409 agents_md_changed naming the current version', async () => {
    const start = (await get()).body.agents_md;
    const byBody = await put({ content: 'v2', etag: start.etag });
    expect(byBody.status).toBe(200);
    expect(byBody.body).toMatchObject({ previous_etag: start.etag, agents_md: { content: 'v2', bytes: 2 } });
    const v2 = byBody.body.agents_md.etag as string;
    expect(v2).not.toBe(start.etag);

    // The old etag again: refused, with what is there now and who wrote it.
    const stale = expectError(await put({ content: 'lost update', etag: start.etag }), 409, 'agents_md_changed');
    expect(stale).toMatchObject({
      expected_etag: start.etag, current_etag: v2, current_bytes: 2, updated_at: byBody.body.agents_md.updated_at,
      updated_by: c.admin.principal_id, remedy: expect.stringContaining(`GET ${path()}`),
    });

    // If-Match, quoted as the ETag header came; it wins over a stale etag in the body.
    const byHeader = await put({ content: 'v3', etag: start.etag }).set('If-Match', `"${v2}"`);
    expect([byHeader.status, byHeader.body.previous_etag, byHeader.body.agents_md.content]).toEqual([200, v2, 'v3']);
    const v3 = byHeader.body.agents_md.etag as string;
    // ...and a stale If-Match loses even with the current etag in the body.
    expect(expectError(await put({ content: 'x', etag: v3 }).set('If-Match', `"${v2}"`), 409, 'agents_md_changed').current_etag).toBe(v3);
    // A list of etags: any one of them; a bare (unquoted) one is taken as well.
    const listed = await put({ content: 'v4' }).set('If-Match', `"${v2}", ${v3}`);
    expect([listed.status, listed.body.previous_etag]).toEqual([200, v3]);
    const v4 = listed.body.agents_md.etag as string;

    // If-Match: * is "some version exists"; If-None-Match: * and etag null are "none exists yet".
    const star = await put({ content: 'v5' }).set('If-Match', '*');
    expect([star.status, star.body.previous_etag]).toEqual([200, v4]);
    const v5 = star.body.agents_md.etag as string;
    expect(expectError(await put({ content: 'x' }).set('If-None-Match', '*'), 409, 'agents_md_changed')).toMatchObject({ expected_etag: null, current_etag: v5 });
    expect(expectError(await put({ content: 'x', etag: null }), 409, 'agents_md_changed')).toMatchObject({ expected_etag: null, current_etag: v5 });

    // No condition at all: last writer wins.
    const blind = await put({ content: 'v6' });
    expect([blind.status, blind.body.previous_etag, blind.body.agents_md.content]).toEqual([200, v5, 'v6']);
    expect((await get()).body.agents_md).toEqual(blind.body.agents_md);
    // Every refusal changed nothing; each write was audited once, with the etag it replaced.
    const events = (await audits(c.w.warehouse_id)).map((e) => e.data as { changes: { agents_md: { etag: string } }; previous: { agents_md: { etag: string } } });
    expect(events.map((e) => [e.previous.agents_md.etag, e.changes.agents_md.etag]))
      .toEqual([[null, start.etag], [start.etag, v2], [v2, v3], [v3, v4], [v4, v5], [v5, blind.body.agents_md.etag]]);
  });

  test('an empty content removes them: content null, GET agents_md null; If-Match: * is then refused and If-None-Match: * writes again', async () => {
    const before = (await get()).body.agents_md;
    const removed = await put({ content: '', etag: before.etag });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      warehouse_id: c.w.warehouse_id, name: c.w.name, previous_etag: before.etag,
      agents_md: { content: null, etag: null, bytes: 0, updated_at: expect.stringMatching(ISO), updated_by: c.admin.principal_id },
    });
    expect(removed.headers.etag).toBeUndefined();
    expect((await get()).body.agents_md).toBeNull();
    expect((await gateway().get(`/v1/warehouses/${c.w.warehouse_id}`).set(bearer(c.admin.api_key))).body.agents_md).toBeNull();
    expect((await audits(c.w.warehouse_id)).at(-1)!.data).toEqual({
      changes: { agents_md: { bytes: 0, etag: null } }, previous: { agents_md: { bytes: before.bytes, etag: before.etag } },
    });
    // The 409 against a removal says who removed it and when.
    expect(expectError(await put({ content: 'x' }).set('If-Match', '*'), 409, 'agents_md_changed'))
      .toMatchObject({ expected_etag: '*', current_etag: null, current_bytes: 0, updated_at: removed.body.agents_md.updated_at, updated_by: c.admin.principal_id });
    expectError(await put({ content: 'x', etag: before.etag }), 409, 'agents_md_changed');
    // Removing what is not there changes nothing, not even who and when, and is not audited.
    const count = (await audits(c.w.warehouse_id)).length;
    const noop = await put({ content: '' }, writer.api_key);
    expect([noop.status, noop.body.previous_etag, noop.body.agents_md]).toEqual([200, null, removed.body.agents_md]);
    expect(await audits(c.w.warehouse_id)).toHaveLength(count);
    const again = await put({ content: 'back' }).set('If-None-Match', '*');
    expect([again.status, again.body.previous_etag, again.body.agents_md.content]).toEqual([200, null, 'back']);
  });

  test('64 KiB of UTF-8 at most: 413 too_large with limit_bytes and bytes, counted in bytes not characters; nothing written', async () => {
    const current = (await get()).body.agents_md;
    const over = expectError(await put({ content: 'x'.repeat(LIMIT + 1) }), 413, 'too_large');
    expect(over).toMatchObject({ field: 'content', limit_bytes: LIMIT, bytes: LIMIT + 1 });
    // 32,769 characters, 65,538 bytes.
    const wide = 'é'.repeat(LIMIT / 2 + 1);
    expect(expectError(await put({ content: wide }), 413, 'too_large')).toMatchObject({ limit_bytes: LIMIT, bytes: LIMIT + 2 });
    expect((await get()).body.agents_md).toEqual(current);
    const exactly = await put({ content: 'é'.repeat(LIMIT / 2) });
    expect([exactly.status, exactly.body.agents_md.bytes]).toEqual([200, LIMIT]);
    expect((await get()).body.agents_md.content).toHaveLength(LIMIT / 2);
  });

  test('malformed bodies and headers: 400 with the field, 415 for a body that is not JSON; nothing written', async () => {
    const current = (await get()).body.agents_md;
    expect(expectError(await put({}), 400, 'missing_field').field).toBe('content');
    expect(expectError(await put({ etag: current.etag }), 400, 'missing_field').field).toBe('content');
    expect(expectError(await put([]), 400, 'missing_field').field).toBe('content');
    for (const content of [5, null, true, ['a'], { text: 'a' }]) {
      expect([content, expectError(await put({ content }), 400, 'invalid_value').field]).toEqual([content, 'content']);
    }
    expect(expectError(await put({ content: 'a\u0000b' }), 400, 'invalid_value').field).toBe('content');
    for (const etag of [5, '', ['x'], { v: 1 }]) {
      expect([etag, expectError(await put({ content: 'a', etag }), 400, 'invalid_value').field]).toEqual([etag, 'etag']);
    }
    expect(expectError(await put({ content: 'a', text: 'b' }), 400, 'invalid_field')).toMatchObject({ field: 'text', accepts: ['content', 'etag'] });
    expect(expectError(await put({ content: 'a' }).set('If-None-Match', `"${current.etag}"`), 400, 'invalid_value')).toMatchObject({ field: 'If-None-Match', accepts: ['*'] });
    expect(expectError(await put({ content: 'a' }).set('If-Match', ' , '), 400, 'invalid_value').field).toBe('If-Match');
    expectError(await put({ content: 'a' }).set('If-Match', `"${current.etag}"`).set('If-None-Match', '*'), 400, 'invalid_value');
    const markdown = await gateway().put(path()).set(bearer(c.admin.api_key)).set('Content-Type', 'text/markdown').send('# not JSON');
    expect(expectError(markdown, 415, 'unsupported_media_type').accepts).toEqual(['application/json']);
    expect((await get()).body.agents_md).toEqual(current);
  });
});

describe('who may', () => {
  test('a read holder reads but may not write (403 forbidden naming who can grant); a write grant writes', async () => {
    expect((await get(c.reader.api_key)).status).toBe(200);
    const refused = expectError(await put({ content: 'mine' }, c.reader.api_key), 403, 'forbidden');
    expect(refused).toMatchObject({ level: 'read', needed: 'write' });
    expect(refused.can_grant).toHaveLength(1);
    const written = await put({ content: 'by the agent' }, writer.api_key);
    expect([written.status, written.body.agents_md.updated_by]).toEqual([200, writer.agent_id]);
  });

  test('an ungranted agent of the organisation and another organisation\'s admin: 404 warehouse_not_found on both routes; no credential: 401', async () => {
    const before = (await get()).body.agents_md;
    for (const who of [c.ungranted, c.stranger]) {
      expectError(await get(who.api_key), 404, 'warehouse_not_found');
      expectError(await get(who.api_key, c.w.name), 404, 'warehouse_not_found');
      expectError(await put({ content: 'theirs' }, who.api_key), 404, 'warehouse_not_found');
      expectError(await put({ content: 'theirs', etag: before.etag }, who.api_key, c.w.name), 404, 'warehouse_not_found');
    }
    expectError(await gateway().get(path()), 401, 'unauthorized');
    expectError(await gateway().put(path()).send({ content: 'anon' }), 401, 'unauthorized');
    expect((await get()).body.agents_md).toEqual(before);
  });
});

describe('concurrency', () => {
  test('20 PUTs at once with the same etag: exactly one 200, nineteen 409 agents_md_changed; one audit event; the winner\'s text stands', async () => {
    const w = await newWarehouse(c.admin.api_key, (await newProject(c.admin.api_key)).project_id, `amd_race_${uniq()}`);
    const first = await put({ content: 'start' }, c.admin.api_key, w.warehouse_id);
    const etag = first.body.agents_md.etag as string;
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => put({ content: `writer ${i}`, etag }, c.admin.api_key, w.warehouse_id)));
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    const lost = answers.filter((a) => a.status === 409);
    expect(lost).toHaveLength(19);
    for (const a of lost) expect(expectError(a, 409, 'agents_md_changed')).toMatchObject({ expected_etag: etag, current_etag: won[0].body.agents_md.etag });
    expect((await get(c.admin.api_key, w.warehouse_id)).body.agents_md).toEqual(won[0].body.agents_md);
    expect(won[0].body.previous_etag).toBe(etag);
    expect(await audits(w.warehouse_id)).toHaveLength(2);
  });

  test('20 first writes at once, each "only if none exists" (half by etag null, half by If-None-Match: *): exactly one wins', async () => {
    const w = await newWarehouse(c.admin.api_key, (await newProject(c.admin.api_key)).project_id, `amd_first_${uniq()}`);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2
      ? put({ content: `first ${i}`, etag: null }, c.admin.api_key, w.warehouse_id)
      : put({ content: `first ${i}` }, c.admin.api_key, w.warehouse_id).set('If-None-Match', '*'))));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(19).fill(409)]);
    const winner = answers.find((a) => a.status === 200)!;
    expect((await get(c.admin.api_key, w.warehouse_id)).body.agents_md.content).toBe(winner.body.agents_md.content);
    expect(await audits(w.warehouse_id)).toHaveLength(1);
  });
});

describe('the MCP tool catalog_instructions', () => {
  let docs: Served;
  let person: Person;
  let stranger: Person;
  let hidden: string;
  let empty: string;
  let token: Client;
  const LAKE_TEXT = '# lake\nUse `events.clicks` for traffic; never drop `raw.*`.';

  beforeAll(async () => {
    docs = await clientDocuments();
    [person, stranger] = await Promise.all([personWithSession(), personWithSession()]);
    [hidden, empty] = await Promise.all([newCatalogOf(person, 'hidden'), newCatalogOf(person, 'empty')]);
    for (const [who, id, content] of [[person, person.lake, LAKE_TEXT], [person, hidden, 'secret ways'], [stranger, stranger.lake, 'the stranger\'s']] as const) {
      expect((await gateway().put(path(id)).set(bearer(who.access)).send({ content })).status).toBe(200);
    }
    // Read on lake and on empty; hidden (same organisation) not granted.
    const access = await accessFor(person, `${docs.base}/client-mcp-amd.json`, [{ warehouse_id: person.lake, level: 'read' }, { warehouse_id: empty, level: 'read' }], 'catalogs:read');
    token = await mcpClient(access.access_token);
  }, 120_000);
  afterAll(async () => {
    await token?.close();
    await new Promise((done) => docs.server.close(done));
  });

  test('listed with the read tools, read-only', async () => {
    const t = (await token.listTools()).tools.find((x) => x.name === 'catalog_instructions');
    expect(t).toMatchObject({ annotations: { readOnlyHint: true } });
    expect(t!.inputSchema.required).toEqual(['catalog']);
  });

  test('a granted catalog: the text, by name or id; one with none: instructions null', async () => {
    const byName = await callTool(token, 'catalog_instructions', { catalog: 'lake' });
    expect(byName.isError).toBe(false);
    expect(byName.data).toEqual({
      catalog: 'lake', warehouse_id: person.lake, instructions: LAKE_TEXT,
      etag: expect.stringMatching(ETAG), bytes: Buffer.byteLength(LAKE_TEXT), updated_at: expect.stringMatching(ISO), updated_by: person.principalId,
    });
    expect(byName.sentence).toMatch(/^Instructions for catalog lake \(59 bytes, updated .+\): follow them while working in it\.$/);
    expect((await callTool(token, 'catalog_instructions', { catalog: person.lake })).data.instructions).toBe(byName.data.instructions);
    const none = await callTool(token, 'catalog_instructions', { catalog: empty });
    expect([none.isError, none.data]).toEqual([false, { catalog: 'empty', warehouse_id: empty, instructions: null }]);
  });

  test('a catalog not granted, and another organisation\'s: warehouse_not_found, the text never shown', async () => {
    for (const catalog of [hidden, 'hidden', stranger.lake]) {
      const e = await refusedWith(token, 'catalog_instructions', { catalog }, 'warehouse_not_found');
      expect(e.status).toBe(404);
      expect(JSON.stringify(e)).not.toMatch(/secret ways|stranger's/);
    }
  });
});
