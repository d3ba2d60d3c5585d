import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { discoverOAuthServerInfo, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import request from 'supertest';
import { bearer, gateway, sql, stack } from './helpers';
import { newCatalogOf, type Served } from '../support/oauth';
import {
  accessFor, callTool, clientDocuments, mcpClient, mcpUrl, metadataUrl, personWithSession, postMcp, refusedWith, type Access, type Person,
} from '../support/mcp';

// Floe's MCP tool server through the public gateway, with the SDK's own
// client: the RFC 9728 metadata, the bearer check (401 with the pointer), the
// tools a token's scope lists, each tool against a real catalog acting with
// the token's grants and nothing more, refusals as tool errors with the
// control plane's codes, a revoked token turned into a 401, and the audit.

const READ_TOOLS = ['catalog_instructions', 'catalog_usage', 'connection_recipe', 'describe_table', 'list_catalogs', 'list_tables', 'query', 'table_health'];
const ALL_TOOLS = [...READ_TOOLS, 'create_table', 'send_rows'].sort();

let docs: Served;
let person: Person;
let stranger: Person;
/** A catalog of `person`'s organisation the tokens are not granted. */
let ungranted: { warehouse_id: string; name: string };
let writer: Access;
let reader: Access;
let w: Client;
let r: Client;
const client = (name: string) => `${docs.base}/client-mcp-${name}.json`;

beforeAll(async () => {
  docs = await clientDocuments();
  [person, stranger] = await Promise.all([personWithSession(), personWithSession()]);
  ungranted = { warehouse_id: await newCatalogOf(person, 'hidden'), name: 'hidden' };
  // One client each: a record is bound to person and client, and a new consent replaces its grants.
  writer = await accessFor(person, client('writer'), [{ warehouse_id: person.lake, level: 'write' }]);
  reader = await accessFor(person, client('reader'), [{ warehouse_id: person.lake, level: 'write' }], 'catalogs:read');
  [w, r] = await Promise.all([mcpClient(writer.access_token), mcpClient(reader.access_token)]);
}, 120_000);
afterAll(async () => {
  await Promise.all([w?.close(), r?.close()]);
  await new Promise((done) => docs.server.close(done));
});

describe('protected-resource metadata (RFC 9728)', () => {
  test('at the path-suffixed address and the bare one: exactly the resource, its authorization server, scopes and bearer method', async () => {
    const expected = {
      resource: mcpUrl(), authorization_servers: [stack().base_url], scopes_supported: ['catalogs:read', 'catalogs:write'],
      bearer_methods_supported: ['header'], resource_name: 'Floe MCP tool server',
    };
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const res = await gateway().get(path);
      expect([res.status, res.body]).toEqual([200, expected]);
    }
    // The authorization server it names answers its own metadata at the address the SDK's client derives.
    const as = await gateway().get('/.well-known/oauth-authorization-server');
    expect([as.status, as.body.issuer]).toEqual([200, stack().base_url]);
  });

  test('the SDK client\'s own discovery: the 401\'s pointer, then the resource metadata, then the authorization server\'s metadata', async () => {
    const pointer = extractWWWAuthenticateParams(await postMcp({})).resourceMetadataUrl;
    expect(pointer?.href).toBe(metadataUrl());
    const info = await discoverOAuthServerInfo(mcpUrl(), { resourceMetadataUrl: pointer });
    expect(info.resourceMetadata?.resource).toBe(mcpUrl());
    expect(info.authorizationServerUrl).toBe(stack().base_url);
    expect(info.authorizationServerMetadata).toMatchObject({ issuer: stack().base_url, code_challenge_methods_supported: ['S256'] });
  });
});

describe('the bearer check', () => {
  test('no token: 401 in the envelope, WWW-Authenticate names the metadata and no error', async () => {
    const res = await postMcp({});
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl()}"`);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: 'unauthorized', resource_metadata: metadataUrl(), request_id: res.headers.get('x-request-id') });
  });

  test('garbage, and a token for another audience (a login session\'s, for the control plane): 401 invalid_token with the pointer', async () => {
    for (const token of ['not-a-token', 'a.b.c', person.access]) {
      const res = await postMcp({ Authorization: `Bearer ${token}` });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(new RegExp(`^Bearer resource_metadata="${metadataUrl()}", error="invalid_token", error_description="[^"]+"$`));
      expect((await res.json()).error.code).toBe('unauthorized');
    }
  });

  test('the SDK client without a token is refused at connect', async () => {
    await expect(mcpClient('')).rejects.toThrow();
  });

  test('GET on the endpoint (no sessions, no event stream): 405 with Allow once authenticated', async () => {
    const res = await fetch(mcpUrl(), { headers: { Authorization: `Bearer ${writer.access_token}`, Accept: 'text/event-stream' } });
    expect([res.status, res.headers.get('allow')]).toEqual([405, 'POST']);
  });
});

describe('tools/list by level', () => {
  test('catalogs:write with a write grant lists every tool; catalogs:read, or read grants only, the read tools', async () => {
    expect((await w.listTools()).tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
    expect((await r.listTools()).tools.map((t) => t.name).sort()).toEqual(READ_TOOLS);
    const readGrants = await accessFor(person, client('read-grants'), [{ warehouse_id: person.lake, level: 'read' }]);
    const g = await mcpClient(readGrants.access_token);
    try {
      expect((await g.listTools()).tools.map((t) => t.name).sort()).toEqual(READ_TOOLS);
      // Called anyway, the control plane refuses it at the record's level.
      await refusedWith(g, 'create_table', { catalog: 'lake', namespace: 'a', table: 'b', columns: [{ name: 'x', type: 'long' }] }, 'forbidden');
    } finally {
      await g.close();
    }
    const described = (await w.listTools()).tools.find((t) => t.name === 'create_table')!;
    expect(described.inputSchema.required).toEqual(['catalog', 'namespace', 'table', 'columns']);
  });
});

describe('the tools against a real catalog', () => {
  test('list_catalogs: the granted catalog at its level; the organisation\'s ungranted one is not there', async () => {
    const res = await callTool(w, 'list_catalogs');
    expect(res.isError).toBe(false);
    expect(res.data.catalogs.map((c: any) => [c.warehouse_id, c.name, c.level])).toEqual([[person.lake, 'lake', 'write']]);
    expect(res.data.count).toBe(1);
    // catalogs:read caps the level
    expect((await callTool(r, 'list_catalogs')).data.catalogs.map((c: any) => c.level)).toEqual(['read']);
  });

  test('create_table, then list_tables and describe_table see it; the catalog\'s default format version applied', async () => {
    const made = await callTool(w, 'create_table', {
      catalog: 'lake', namespace: 'mcp_ns', table: 'things',
      columns: [{ name: 'id', type: 'long', required: true }, { name: 'msg', type: 'string', doc: 'a message' }],
    });
    expect(made.isError).toBe(false);
    expect(made.data).toMatchObject({ table: 'mcp_ns.things', warehouse_id: person.lake, format_version: 2, format_version_source: 'catalog_default', format_version_requested: null });

    const listed = await callTool(r, 'list_tables', { catalog: 'lake' });
    expect(listed.data).toMatchObject({ catalog: 'lake', warehouse_id: person.lake });
    expect(listed.data.namespaces).toContain('mcp_ns');
    expect(listed.data.tables).toContain('mcp_ns.things');

    const described = await callTool(r, 'describe_table', { catalog: person.lake, namespace: 'mcp_ns', table: 'things' });
    expect(described.isError).toBe(false);
    expect(described.data).toMatchObject({ table: 'mcp_ns.things', format_version: 2, rows: 0, snapshots: 0, properties: expect.any(Object) });
    expect(described.data.schema.map((c: any) => [c.name, c.type, c.required])).toEqual([['id', 'long', true], ['msg', 'string', false]]);
    expect(typeof described.data.rows_source).toBe('string');
  });

  test('table_health: the table against the maintenance rules, and its runs; a table that is not there: table_not_found', async () => {
    await callTool(w, 'create_table', { catalog: 'lake', namespace: 'mcp_ns', table: 'healthy', columns: [{ name: 'id', type: 'long', required: true }] });
    const h = await callTool(r, 'table_health', { catalog: 'lake', namespace: 'mcp_ns', table: 'healthy' });
    expect(h.isError).toBe(false);
    expect(h.data).toMatchObject({ table: 'mcp_ns.healthy', health: { snapshots: 0, data_files: 0, due: [{ kind: 'remove_orphans', rule: 'no orphan pass yet' }] }, runs: [] });
    expect(h.data.rules).toEqual(expect.arrayContaining([expect.stringMatching(/^compact and rewrite_manifests: /), expect.stringMatching(/^expire_snapshots: /)]));
    expect(h.sentence).toMatch(/^Table mcp_ns\.healthy: 0 snapshot\(s\), 0 manifest\(s\), 0 data file\(s\)\. Due now: remove_orphans \(no orphan pass yet\)\. No maintenance run yet\.$/);
    expect((await refusedWith(r, 'table_health', { catalog: 'lake', namespace: 'mcp_ns', table: 'nothing_here' }, 'table_not_found')).status).toBe(404);
  });

  test('describe_table of a table that is not there: table_not_found from the control plane', async () => {
    const e = await refusedWith(r, 'describe_table', { catalog: 'lake', namespace: 'mcp_ns', table: 'nothing_here' }, 'table_not_found');
    expect(e.status).toBe(404);
  });

  test('connection_recipe: the credential of the token\'s level (write, and read-only under catalogs:read)', async () => {
    const rw = await callTool(w, 'connection_recipe', { catalog: 'lake', engine: 'pyiceberg' });
    expect(rw.data).toMatchObject({ warehouse_id: person.lake, engine: 'pyiceberg', level: 'write' });
    const ro = await callTool(r, 'connection_recipe', { catalog: 'lake' });
    expect(ro.data).toMatchObject({ warehouse_id: person.lake, engine: 'duckdb', level: 'read' });
    expect(JSON.stringify(ro.data.catalog_credential)).toMatch(/-ro/);
  });

  test('catalog_usage: the one catalog\'s row and the storage limit; an unknown catalog: warehouse_not_found', async () => {
    const u = await callTool(r, 'catalog_usage', { catalog: 'lake', days: 3 });
    expect(u.isError).toBe(false);
    expect(u.data.catalog).toMatchObject({ warehouse_id: person.lake, name: 'lake' });
    expect(u.data.storage_limit).toMatchObject({ value: expect.any(Number), headroom: expect.any(Number), over_limit: false });
    await refusedWith(r, 'catalog_usage', { catalog: 'hidden' }, 'warehouse_not_found');
  });

  test('send_rows: stored through the send route\'s intake, once per batch id; the batch is waiting in the sink', async () => {
    const sink = await gateway().post('/v1/sinks').set(bearer(person.access)).send({ name: 'mcp_sink', table: 'mcp_ns.things', warehouse: 'lake' });
    expect(sink.status).toBe(201);
    const sent = await callTool(w, 'send_rows', { sink: 'mcp_sink', rows: [{ id: 1, msg: 'a' }, { id: 2 }], batch_id: 'mcp-b1' });
    expect(sent.isError).toBe(false);
    expect(sent.data).toMatchObject({ sink_id: sink.body.sink_id, accepted: 2, rejected: 0, batch_id: 'mcp-b1', state: 'pending', table: 'mcp_ns.things' });
    const again = await callTool(w, 'send_rows', { sink: sink.body.sink_id, rows: [{ id: 1 }], batch_id: 'mcp-b1' });
    expect(again.data).toMatchObject({ duplicate: true, accepted: 2, batch_id: 'mcp-b1' });
    const rows = await sql(`SELECT accepted, rejected, via FROM sink_batches WHERE sink_id = $1`, [sink.body.sink_id]);
    expect(rows).toEqual([{ accepted: 2, rejected: 0, via: 'send' }]);
    const seen = await gateway().get(`/v1/sinks/${sink.body.sink_id}`).set(bearer(person.access));
    expect(seen.body.received).toMatchObject({ batches: 1, rows: 2 });
  });

  test('a sink that is not there: sink_not_found', async () => {
    await refusedWith(w, 'send_rows', { sink: 'no_such_sink', rows: [{ id: 1 }] }, 'sink_not_found');
  });
});

describe('what a token may not do', () => {
  test('a write tool called with a read-scoped token: insufficient_scope, nothing created', async () => {
    const e = await refusedWith(r, 'create_table', { catalog: 'lake', namespace: 'mcp_ns', table: 'nope', columns: [{ name: 'id', type: 'long' }] }, 'insufficient_scope');
    expect(e).toMatchObject({ status: 403, remedy: expect.any(String), scope: 'catalogs:read' });
    await refusedWith(r, 'send_rows', { sink: 'mcp_sink', rows: [{ id: 1 }] }, 'insufficient_scope');
    expect((await callTool(r, 'list_tables', { catalog: 'lake', namespace: 'mcp_ns' })).data.tables).not.toContain('mcp_ns.nope');
  });

  test('a catalog of the organisation the token was not granted: warehouse_not_found', async () => {
    await refusedWith(w, 'describe_table', { catalog: ungranted.warehouse_id, namespace: 'x', table: 'y' }, 'warehouse_not_found');
    await refusedWith(w, 'list_tables', { catalog: 'hidden' }, 'warehouse_not_found');
    await refusedWith(w, 'catalog_usage', { catalog: ungranted.warehouse_id }, 'warehouse_not_found');
  });

  test('cross-tenant: another organisation\'s catalog is neither listed nor reachable', async () => {
    expect((await callTool(w, 'list_catalogs')).data.catalogs.map((c: any) => c.warehouse_id)).not.toContain(stranger.lake);
    await refusedWith(w, 'describe_table', { catalog: stranger.lake, namespace: 'x', table: 'y' }, 'warehouse_not_found');
    await refusedWith(w, 'connection_recipe', { catalog: stranger.lake }, 'warehouse_not_found');
    // and the other way round: the stranger's own token sees only the stranger's catalog
    const theirs = await accessFor(stranger, client('stranger'), [{ warehouse_id: stranger.lake, level: 'write' }]);
    const s = await mcpClient(theirs.access_token);
    try {
      expect((await callTool(s, 'list_catalogs')).data.catalogs.map((c: any) => c.warehouse_id)).toEqual([stranger.lake]);
      await refusedWith(s, 'list_tables', { catalog: person.lake }, 'warehouse_not_found');
    } finally {
      await s.close();
    }
  });

  test('a revoked token record: the very next request is an HTTP 401 with the pointer', async () => {
    const access = await accessFor(person, client('revoked'), [{ warehouse_id: person.lake, level: 'read' }]);
    const c = await mcpClient(access.access_token);
    try {
      expect((await callTool(c, 'list_catalogs')).isError).toBe(false);
      const gone = await gateway().delete(`/v1/orgs/${person.org.org_id}/agents/${access.agentId}`).set(bearer(person.access));
      expect(gone.status).toBe(200);
      await expect(c.callTool({ name: 'list_catalogs', arguments: {} })).rejects.toThrow(/unauthorized/);
      const next = await postMcp({ Authorization: `Bearer ${access.access_token}` });
      expect(next.status).toBe(401);
      expect(next.headers.get('www-authenticate')).toMatch(new RegExp(`^Bearer resource_metadata="${metadataUrl()}", error="invalid_token"`));
    } finally {
      await c.close();
    }
  });
});

describe('the ingest gateway\'s internal intake behind send_rows', () => {
  const internal = () => request(stack().ingest_internal_url!);
  const batch = (sinkId: string) => internal().post(`/internal/sinks/${sinkId}/batches`).set('Content-Type', 'application/json').set('Idempotency-Key', 'internal-1');

  test('only on the private listener, with the bootstrap secret and a named actor; never on {ingest_url} or through the public gateway', async () => {
    const sinkId = (await sql(`SELECT id FROM sinks WHERE name = 'mcp_sink'`))[0].id as string;
    // {ingest_url} is public (devices post to it directly): the internal route is not there, whatever the credential.
    const publicHost = await request(stack().ingest_url).post(`/internal/sinks/${sinkId}/batches`).set(bearer(stack().bootstrap_secret))
      .set('X-Floe-Actor-Id', writer.agentId).set('Content-Type', 'application/json').set('Idempotency-Key', 'internal-0').send('[{"id":9}]');
    expect([publicHost.status, publicHost.body.error.code]).toEqual([404, 'not_found']);
    // And the private listener has none of the public routes.
    expect((await internal().post(`/v1/sinks/${sinkId}`).set('Content-Type', 'application/json').send('[]')).status).toBe(404);
    expect((await batch(sinkId).send('[{"id":9}]')).body.error.code).toBe('unauthorized');
    expect((await batch(sinkId).set(bearer('x'.repeat(32))).send('[{"id":9}]')).status).toBe(401);
    const noActor = await batch(sinkId).set(bearer(stack().bootstrap_secret)).send('[{"id":9}]');
    expect([noActor.status, noActor.body.error.code]).toEqual([400, 'missing_field']);
    const atGateway = await gateway().post(`/internal/sinks/${sinkId}/batches`).set(bearer(stack().bootstrap_secret)).set('X-Floe-Actor-Id', writer.agentId).send([{ id: 9 }]);
    expect([atGateway.status, atGateway.body.error.code]).toEqual([404, 'not_found']);
    const unknown = await batch('snk_nothing').set(bearer(stack().bootstrap_secret)).set('X-Floe-Actor-Id', writer.agentId).send('[{"id":9}]');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'sink_not_found']);
    // The send route's own refusals, from the shared intake.
    const notArray = await batch(sinkId).set(bearer(stack().bootstrap_secret)).set('X-Floe-Actor-Id', writer.agentId).send('{"id":9}');
    expect([notArray.status, notArray.body.error.code]).toEqual([400, 'not_an_array']);
  });
});

describe('malformed input', () => {
  const raw = (body: string, headers: Record<string, string> = {}, path = '') => fetch(`${mcpUrl()}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18', Authorization: `Bearer ${writer.access_token}`, ...headers },
    body,
  });

  test('broken JSON, no object, an empty batch, deep nesting, another content type, an unknown method, repeated parameters, a NUL, a broken escape: never 5xx', async () => {
    const answers = await Promise.all([
      raw('{nope'), raw('"x"'), raw('[]'), raw(`${'['.repeat(20_000)}${']'.repeat(20_000)}`), raw('{}', { 'Content-Type': 'text/plain' }),
      raw('{"jsonrpc":"2.0","id":1,"method":"nope"}'), raw('{}', {}, '?a=1&a=2'), raw('{}', {}, '?a=%00'), raw('{}', {}, '?a=%zz'),
    ]);
    // Ours in the envelope (JSON, nesting, query checks), the SDK's in JSON-RPC (content type, unknown method, a message that is none);
    // an empty batch is accepted with nothing to answer.
    expect(answers.map((a) => a.status)).toEqual([400, 400, 202, 400, 415, 200, 400, 400, 400]);
  });

  test('wrong types and a NUL inside a tool\'s arguments: a tool error or a JSON-RPC error, never a 5xx', async () => {
    const call = (args: unknown) => raw(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list_tables', arguments: args } }));
    for (const args of [{ catalog: 123 }, { catalog: 'la\u0000ke' }, { catalog: ['lake'] }, { catalog: 'lake', namespace: { deep: true } }, 'lake']) {
      const res = await call(args);
      expect(res.status).toBeLessThan(500);
      const body = await res.json();
      expect(body.error !== undefined || body.result?.isError === true).toBe(true);
    }
  });
});

describe('a refusal an assistant can act on', () => {
  test('send_rows over the storage limit: quota_exceeded with current, limit and a remedy in words; one quota.reject with the record as actor', async () => {
    // An organisation of its own, so the others' tests keep their headroom.
    const full = await personWithSession();
    const table = await gateway().post('/v1/tables').set(bearer(full.access))
      .send({ warehouse_id: full.lake, namespace: 'q', name: 't', schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: false, type: 'long' }] } });
    expect(table.status).toBe(201);
    expect((await gateway().post('/v1/sinks').set(bearer(full.access)).send({ name: 'full_sink', table: 'q.t', warehouse: 'lake' })).status).toBe(201);
    const access = await accessFor(full, client('quota'), [{ warehouse_id: full.lake, level: 'write' }]);
    await sql(`INSERT INTO usage_samples (warehouse_id, source, table_bytes, blob_bytes, objects, blob_objects, complete) VALUES ($1, 'sweep', 6000000000, 0, 1, 0, true)`, [full.lake]);
    const c = await mcpClient(access.access_token);
    try {
      const error = await refusedWith(c, 'send_rows', { sink: 'full_sink', rows: [{ id: 1 }] }, 'quota_exceeded');
      expect(error).toMatchObject({ status: 409, current: 6_000_000_000, limit_value: 5_368_709_120, scope: 'organization', remedy: expect.stringContaining('storage limit') });
      expect(await sql(`SELECT actor_id, actor_kind FROM audit_events WHERE action = 'quota.reject' AND org_id = $1`, [full.org.org_id])).toEqual([{ actor_id: access.agentId, actor_kind: 'mcp' }]);
    } finally {
      await c.close();
    }
  });
});

describe('audit', () => {
  test('one mcp.tool_call event per call: the record as actor, the person, the client and the outcome; never the arguments', async () => {
    await callTool(w, 'list_catalogs');
    await refusedWith(r, 'create_table', { catalog: 'lake', namespace: 'a', table: 'b', columns: [{ name: 'secretcolumn', type: 'long' }] }, 'insufficient_scope');
    const rows = await sql(`SELECT actor_id, actor_kind, org_id, data FROM audit_events WHERE action = 'mcp.tool_call' AND actor_id = ANY($1) ORDER BY id`, [[writer.agentId, reader.agentId]]);
    const ok = rows.find((x) => x.actor_id === writer.agentId && x.data.tool === 'list_catalogs');
    expect(ok).toEqual({ actor_id: writer.agentId, actor_kind: 'mcp', org_id: person.org.org_id, data: { tool: 'list_catalogs', person: person.principalId, client_id: client('writer'), outcome: 'ok' } });
    const refused = rows.filter((x) => x.actor_id === reader.agentId && x.data.tool === 'create_table');
    expect(refused.map((x) => x.data.outcome)).toContain('insufficient_scope');
    expect(JSON.stringify(rows)).not.toContain('secretcolumn');
    expect(rows.some((x) => x.data.tool === 'send_rows' && x.data.outcome === 'ok')).toBe(true);
    expect(JSON.stringify(rows)).not.toContain('"msg"');
  });
});
