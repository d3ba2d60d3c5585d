import { EXIT_OK, EXIT_USAGE } from '../errors';
import { runFloe } from '../test-io';
import { mcpHostNote, mcpSetup, MCP_HOSTS, resourceMetadataUrl } from './mcp';

test('the tool server is {base_url}/mcp over Streamable HTTP, signed in with OAuth (never an API key)', () => {
  const s = mcpSetup('https://floe.example.com/');
  expect(s).toMatchObject({
    url: 'https://floe.example.com/mcp',
    transport: 'streamable-http',
    auth: { type: 'oauth', resource_metadata: 'https://floe.example.com/.well-known/oauth-protected-resource/mcp', api_key: false },
  });
  expect(Object.keys(s.snippets).sort()).toEqual([...MCP_HOSTS].sort());
});

test('a snippet for each host, none with a secret', () => {
  const { snippets } = mcpSetup('http://127.0.0.1:8080');
  expect(snippets.generic).toBe('http://127.0.0.1:8080/mcp');
  expect(snippets['claude-code']).toBe('claude mcp add --transport http floe http://127.0.0.1:8080/mcp');
  expect(JSON.parse(snippets.cursor)).toEqual({ mcpServers: { floe: { url: 'http://127.0.0.1:8080/mcp' } } });
  expect(JSON.parse(snippets['claude-desktop'])).toEqual({ mcpServers: { floe: { command: 'npx', args: ['-y', 'mcp-remote', 'http://127.0.0.1:8080/mcp'] } } });
  for (const text of Object.values(snippets)) expect(text).not.toMatch(/al_live_|Bearer|Authorization/);
});

test('the protected-resource metadata keeps a base URL\'s path (RFC 9728)', () => {
  expect(resourceMetadataUrl('https://h.example/floe/mcp')).toBe('https://h.example/.well-known/oauth-protected-resource/floe/mcp');
  expect(mcpSetup('https://h.example/floe').auth.resource_metadata).toBe('https://h.example/.well-known/oauth-protected-resource/floe/mcp');
});

test('every host has a note saying where the snippet goes and that the person signs in', () => {
  const s = mcpSetup('https://floe.example.com');
  for (const host of MCP_HOSTS) expect(mcpHostNote(host, s)).toMatch(/sign in to Floe in the browser/);
  expect(mcpHostNote('claude-code', s)).toMatch(/\/mcp in Claude Code/);
  expect(mcpHostNote('generic', s)).toContain(s.auth.resource_metadata);
});

describe('the command', () => {
  const floe = (argv: string[], env: NodeJS.ProcessEnv) => runFloe(argv, { env });

  test('needs a base URL but no key; the snippet on stdout, the note on stderr', async () => {
    const env = { FLOE_BASE_URL: 'https://floe.example.com' };
    expect(await floe(['mcp'], env)).toMatchObject({ code: EXIT_OK, out: 'https://floe.example.com/mcp', err: expect.stringMatching(/OAuth/) });
    expect((await floe(['mcp', '--host', 'claude-code'], env)).out).toBe('claude mcp add --transport http floe https://floe.example.com/mcp');
    expect(JSON.parse((await floe(['--json', 'mcp'], env)).out)).toEqual(mcpSetup('https://floe.example.com'));
    expect((await floe(['mcp', '--host', 'vim'], env)).code).toBe(EXIT_USAGE);
    expect(await floe(['mcp'], {})).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/no Floe base URL/) });
  });
});
