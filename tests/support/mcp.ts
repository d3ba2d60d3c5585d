import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bearer, gateway, stack } from '../e2e/helpers';
import { requestFrom } from './from-address';
import { authorizeFrom, consentRequest, mcpUrl, personWithSession, serveDocuments, valid, type Served } from './oauth';

// The MCP tool server's e2e setup: access tokens got the way a tool host gets
// them (authorize → consent decision → code exchange, no browser), and the
// SDK's own client holding one.

const MINE = '127.0.0.66';
const VERIFIER = 'the-mcp-server-file-verifier-long-enough-for-pkce_0123456789-._';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const REDIRECT = 'http://127.0.0.1:50123/callback';

export type Person = Awaited<ReturnType<typeof personWithSession>>;
export type Grant = { warehouse_id: string; level: 'read' | 'write' };

export { mcpUrl, personWithSession };

/** The client metadata documents this file's tokens name (127.0.0.77 is the host the e2e stack lets past the guard). */
export const clientDocuments = (): Promise<Served> => {
  let docs: Served;
  return serveDocuments('127.0.0.77', () => docs.base).then((d) => (docs = d));
};

export interface Access { access_token: string; refresh_token: string; scope: string; agentId: string }

/** `who` authorizes `client` with `scope` and allows `grants`; the code exchanged: an access token for the tool server. */
export async function accessFor(who: Person, client: string, grants: Grant[], scope = 'catalogs:read catalogs:write'): Promise<Access> {
  const id = consentRequest(await authorizeFrom(MINE, valid(client, { code_challenge: CHALLENGE, scope })));
  const decided = await gateway().post('/v1/oauth/authorize/decision').set(bearer(who.access)).send({ request_id: id, allow: true, grants });
  expect(decided.status).toBe(200);
  const code = new URL(decided.body.redirect_to).searchParams.get('code')!;
  const res = await requestFrom(MINE, `${stack().base_url}/oauth/token`, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: client, redirect_uri: REDIRECT, resource: mcpUrl() }).toString(),
  });
  expect(res.status).toBe(200);
  return { ...res.body, agentId: decided.body.token.agent_id };
}

/** The SDK's client connected to the tool server with this access token. */
export async function mcpClient(accessToken: string): Promise<Client> {
  const client = new Client({ name: 'floe-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl()), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } }));
  return client;
}

/** A tool's answer: the JSON after its first line, and whether it is an error. */
export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; sentence: string; data: any }> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  const nl = text.indexOf('\n');
  return { isError: Boolean(r.isError), sentence: nl < 0 ? text : text.slice(0, nl), data: nl < 0 ? null : JSON.parse(text.slice(nl + 1)) };
}

/** A tool's refusal: its error envelope, asserted to carry `code`. */
export async function refusedWith(client: Client, name: string, args: Record<string, unknown>, code: string): Promise<Record<string, any>> {
  const r = await callTool(client, name, args);
  if (!r.isError || r.data?.error?.code !== code) throw new Error(`expected ${name} refused with ${code}, got ${JSON.stringify(r)}`);
  expect(r.sentence).toContain(code);
  return r.data.error;
}

/** A raw POST to the tool server (for what the SDK's client hides: statuses and headers). */
export function postMcp(headers: Record<string, string>, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) {
  return fetch(mcpUrl(), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18', ...headers },
    body: JSON.stringify(body),
  });
}

export const metadataUrl = () => `${stack().base_url}/.well-known/oauth-protected-resource/mcp`;
