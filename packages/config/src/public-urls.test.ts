import { publicUrlConflicts, type PublicUrl } from './public-urls';

// The public addresses' agreement, as a pure rule (index.test.ts shows loadConfig refusing through it).

const at = (name: string, value: string, derivedFrom?: string): PublicUrl => ({ name, value, derivedFrom });
const check = (base: string, catalog: string, mcp = `${base}/mcp`) =>
  publicUrlConflicts({ base: at('FLOE_BASE_URL', base), catalog: at('FLOE_CATALOG_URL', catalog), mcp: at('FLOE_MCP_URL', mcp) });

test('addresses that agree: both local, both public on their own hosts or paths, a local API beside a public catalog', () => {
  expect(check('http://127.0.0.1:8080', 'http://127.0.0.1:8181')).toEqual([]);
  expect(check('http://localhost:8080', 'http://localhost:8181')).toEqual([]);
  expect(check('https://floe.example.com', 'https://catalog.floe.example.com')).toEqual([]);
  expect(check('https://floe.example.com', 'https://floe.example.com/catalog')).toEqual([]);
  expect(check('http://floe.test', 'http://catalog.floe.test')).toEqual([]);
  expect(check('http://floe.test', 'https://catalog.floe.test')).toEqual([]);
  expect(check('http://127.0.0.1:8080', 'https://catalog.floe.example.com')).toEqual([]);
  // An https API with a plain-http catalog on this machine (a local TLS proxy in front of the API).
  expect(check('https://localhost:8443', 'http://127.0.0.1:8181')).toEqual([]);
});

test('a public API with a catalog on this machine only is refused, naming both variables and the default the catalog fell to', () => {
  for (const local of ['http://127.0.0.1:8181', 'http://localhost:8181', 'http://catalog.localhost', 'http://127.8.9.10:1', 'http://[::1]:8181']) {
    const [message, ...more] = check('https://floe.example.com', local);
    expect(more).toEqual([]);
    expect(message).toMatch(/^FLOE_CATALOG_URL and FLOE_BASE_URL: .*on this machine only.*cannot reach; set FLOE_CATALOG_URL/);
  }
  const [derived] = publicUrlConflicts({
    base: at('FLOE_BASE_URL', 'https://floe.example.com'),
    catalog: at('FLOE_CATALOG_URL', 'http://127.0.0.1:8181', 'FLOE_HOST and FLOE_CATALOG_PORT'),
    mcp: at('FLOE_MCP_URL', 'https://floe.example.com/mcp'),
  });
  expect(derived).toContain('http://127.0.0.1:8181 (unset, so derived from FLOE_HOST and FLOE_CATALOG_PORT)');
  expect(derived).toContain('https://floe.example.com');
});

test('a plain-http public catalog behind an https API is refused', () => {
  expect(check('https://floe.example.com', 'http://catalog.floe.example.com')).toEqual([
    expect.stringMatching(/^FLOE_CATALOG_URL and FLOE_BASE_URL: .*plain http while the API's https:\/\/floe\.example\.com is https.*in clear/),
  ]);
});

test('the catalog sharing an address with the API or the tool server is refused: the audiences of their tokens would be one', () => {
  expect(check('https://floe.example.com', 'https://FLOE.example.com:443/')).toEqual([
    expect.stringMatching(/^FLOE_CATALOG_URL and FLOE_BASE_URL: both are .*control-plane tokens/),
  ]);
  expect(check('https://floe.example.com', 'https://floe.example.com/mcp')).toEqual([
    expect.stringMatching(/^FLOE_CATALOG_URL and FLOE_MCP_URL: both are .*access tokens/),
  ]);
});

test('an address that is not a plain http(s) URL is refused, naming its variable', () => {
  expect(check('https://floe.example.com', 'ftp://catalog.floe.example.com')).toEqual([expect.stringMatching(/^FLOE_CATALOG_URL: .*http or https/)]);
  expect(check('https://floe.example.com', 'https://catalog.floe.example.com/?x=1')).toEqual([expect.stringMatching(/^FLOE_CATALOG_URL: /)]);
  expect(check('https://floe.example.com#top', 'https://catalog.floe.example.com', 'https://floe.example.com/mcp')).toEqual([expect.stringMatching(/^FLOE_BASE_URL: /)]);
  expect(check('https://floe.example.com', 'https://catalog.floe.example.com', 'mailto:mcp@floe.example.com')).toEqual([expect.stringMatching(/^FLOE_MCP_URL: /)]);
});
