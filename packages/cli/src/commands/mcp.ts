// `floe mcp`: what a tool host needs to use Floe's MCP tool server
// (docs/mcp.md): its URL, `{base_url}/mcp` (the server's default
// FLOE_MCP_URL), over Streamable HTTP, and how it signs in. The server takes
// OAuth access tokens only, never an API key: a host without one gets 401
// with the protected-resource metadata (RFC 9728), finds Floe's authorization
// server there and runs the authorization-code flow, and the person picks the
// catalogs and levels on Floe's consent page. So no snippet carries a secret,
// and the command needs a base URL but no login. The snippet for --host goes
// to stdout, where to put it to stderr; --json prints every host's snippet
// as `{url, transport, auth, snippets}`.
import { Option, type Command } from 'commander';
import { act, examples } from '../command.js';
import { requireBaseUrl } from '../context.js';
import type { Io } from '../io.js';
import { loadLogin } from '../logins.js';

export const MCP_HOSTS = ['generic', 'claude-code', 'claude-desktop', 'cursor'] as const;
export type McpHost = (typeof MCP_HOSTS)[number];

/** What `floe mcp --json` prints. */
export interface McpSetup {
  url: string;
  transport: 'streamable-http';
  auth: { type: 'oauth'; resource_metadata: string; api_key: false };
  snippets: Record<McpHost, string>;
}

/** The server's name in a host's configuration. */
const SERVER_NAME = 'floe';

/** RFC 9728: the metadata of `https://h/p/mcp` is at `https://h/.well-known/oauth-protected-resource/p/mcp`. */
export function resourceMetadataUrl(mcpUrl: string): string {
  const u = new URL(mcpUrl);
  return `${u.origin}/.well-known/oauth-protected-resource${u.pathname.replace(/\/+$/, '')}`;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

export function mcpSetup(baseUrl: string): McpSetup {
  const url = `${baseUrl.replace(/\/+$/, '')}/mcp`;
  return {
    url,
    transport: 'streamable-http',
    auth: { type: 'oauth', resource_metadata: resourceMetadataUrl(url), api_key: false },
    snippets: {
      generic: url,
      'claude-code': `claude mcp add --transport http ${SERVER_NAME} ${url}`,
      // Claude Desktop's config file starts local (stdio) servers only; mcp-remote bridges to a remote one and runs its sign-in.
      'claude-desktop': json({ mcpServers: { [SERVER_NAME]: { command: 'npx', args: ['-y', 'mcp-remote', url] } } }),
      cursor: json({ mcpServers: { [SERVER_NAME]: { url } } }),
    },
  };
}

/** Where the snippet goes and how the host signs in, for the person (stderr). */
export function mcpHostNote(host: McpHost, setup: McpSetup): string {
  const signIn = 'You sign in to Floe in the browser and choose which catalogs the host may use, and at which level; API keys are not accepted.';
  switch (host) {
    case 'claude-code': return `Run the command above, then /mcp in Claude Code and pick ${SERVER_NAME} to sign in. ${signIn}`;
    case 'claude-desktop': return `Merge this into claude_desktop_config.json (Settings → Developer → Edit Config) and restart Claude Desktop; or add ${setup.url} under Settings → Connectors → Add custom connector. ${signIn}`;
    case 'cursor': return `Merge this into ~/.cursor/mcp.json (or .cursor/mcp.json in a project); Cursor signs in when it first connects. ${signIn}`;
    case 'generic': return `Floe's MCP tool server (Streamable HTTP). It takes OAuth access tokens: the host finds Floe's authorization server in ${setup.auth.resource_metadata}. ${signIn}`;
  }
}

export function registerMcp(program: Command, io: Io): void {
  examples(program.command('mcp')
    .description('print what an assistant\'s tool host needs to use Floe\'s MCP tool server')
    .addOption(new Option('--host <host>', 'the tool host the snippet is for').choices(MCP_HOSTS).default('generic'))
    .action(act(io, async (c, opts: { host: McpHost }) => {
      const login = await loadLogin(io, c.g.profile);
      const setup = mcpSetup(requireBaseUrl(c.g.baseUrl, io.env, login).value);
      c.out.result(setup, (s) => {
        c.out.line(s.snippets[opts.host]);
        c.out.note(mcpHostNote(opts.host, s));
      });
    })), ['floe mcp', 'floe mcp --host claude-code', 'floe mcp --host cursor', 'floe mcp --json | jq -r .url']);
}
