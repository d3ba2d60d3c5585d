import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { bearer, gateway, sql, stack } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { callTool, postMcp, refusedWith } from '../support/mcp';
import { allowLakeReadInBrowser, mcpUrl, newCatalogOf, personWithSession } from '../support/oauth';

// The MCP SDK's own client, given Floe's tool-server URL and nothing else:
// its first call is refused 401 with the protected-resource pointer; the SDK
// reads the RFC 9728 document, finds Floe's authorization server, registers
// itself (dynamic registration), and sends the person's browser to authorize
// with PKCE and `resource`. The person signs in and allows one catalog at
// read on /app/authorize in headless Chromium; the SDK exchanges the code,
// lists the tools and calls them: it sees only the approved catalog, at the
// approved level, and a write tool on it is refused. When the person revokes
// the token record, the next call is 401. Screenshots under
// .data/artifacts/mcp-oauth-flow.

const browser = chromiumForFile();
const shot = screenshots('mcp-oauth-flow');

let callback: http.Server;
let redirectUri: string;
let person: Awaited<ReturnType<typeof personWithSession>>;
let scratch: string;

beforeAll(async () => {
  callback = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('back at the tool host'));
  await new Promise<void>((r) => callback.listen(0, '127.0.0.1', r));
  redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  person = await personWithSession();
  scratch = await newCatalogOf(person, 'scratch');
}, 90_000);
afterAll(async () => {
  await new Promise((r) => callback.close(r));
});

/** What a tool host keeps between runs, in memory; the browser step is the test's. */
class TestHost implements OAuthClientProvider {
  registered?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier?: string;
  sentTo?: URL;
  get redirectUrl(): string {
    return redirectUri;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'SDK Test Host', redirect_uris: [redirectUri], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.registered;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.registered = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.sentTo = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier!;
  }
}

const connect = async (host: TestHost) => {
  const client = new Client({ name: 'sdk-test-host', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: host });
  await client.connect(transport);
  return { client, transport };
};

test('the SDK client discovers, authorizes through the consent page, and works with exactly what the person allowed; revoked, the next call is 401', async () => {
  const host = new TestHost();

  // 1. Unauthorized: the SDK discovers everything from the tool server's URL and sends the person to authorize.
  const first = new StreamableHTTPClientTransport(new URL(mcpUrl()), { authProvider: host });
  await expect(new Client({ name: 'sdk-test-host', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  expect(host.registered?.client_id).toMatch(/^dcr_/);
  const to = host.sentTo!;
  expect(`${to.origin}${to.pathname}`).toBe(`${stack().base_url}/oauth/authorize`);
  expect(Object.fromEntries(to.searchParams)).toMatchObject({
    client_id: host.registered!.client_id, redirect_uri: redirectUri, response_type: 'code', code_challenge_method: 'S256', resource: mcpUrl(),
  });

  // 2. The person's browser: sign in on the way, allow lake at read only.
  const page = await browser().newPage();
  const landed = await allowLakeReadInBrowser(page, to.href, {
    email: person.email, client: 'SDK Test Host', redirectUri,
    look: async (p) => {
      expect(await p.getByLabel('scratch', { exact: true }).isChecked()).toBe(false);
      await shot(p, '1-consent');
    },
  });
  const code = landed.searchParams.get('code')!;
  await page.close();
  await first.finishAuth(code);
  expect(host.saved).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), refresh_token: expect.stringMatching(/^ort_/) });

  // 3. Connected: the tools, the one catalog at read, nothing else, and a write refused.
  const { client } = await connect(host);
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  // Read on lake only: a read-level token, so only the read tools are listed.
  expect(tools).toEqual(['catalog_instructions', 'catalog_usage', 'connection_recipe', 'describe_table', 'list_catalogs', 'list_tables', 'query', 'table_health']);
  const catalogs = await callTool(client, 'list_catalogs');
  expect(catalogs.isError).toBe(false);
  expect(JSON.stringify(catalogs.data)).toContain(person.lake);
  expect(JSON.stringify(catalogs.data)).not.toContain(scratch);
  await refusedWith(client, 'list_tables', { catalog: scratch }, 'warehouse_not_found');
  await refusedWith(client, 'create_table', { catalog: 'lake', namespace: 'events', table: 'clicks', columns: [{ name: 'id', type: 'long' }] }, 'forbidden');
  const [record] = await sql(`SELECT agent_id FROM oauth_bindings WHERE person_id = $1 AND client_id = $2`, [person.principalId, host.registered!.client_id]);
  const audited = await sql(`SELECT actor_id, actor_kind, data->>'tool' AS tool FROM audit_events WHERE action = 'mcp.tool_call' AND actor_id = $1 ORDER BY id`, [record.agent_id]);
  expect(audited.map((e) => e.tool)).toEqual(['list_catalogs', 'list_tables', 'create_table']);
  await client.close();

  // 4. The person revokes the token record: the next call with its access token is 401 with the pointer.
  expect((await gateway().delete(`/v1/orgs/${person.org.org_id}/agents/${record.agent_id}`).set(bearer(person.access))).status).toBe(200);
  const raw = await postMcp({ Authorization: `Bearer ${host.saved!.access_token}` });
  expect(raw.status).toBe(401);
  expect(raw.headers.get('www-authenticate')).toContain('resource_metadata=');
}, 120_000);
