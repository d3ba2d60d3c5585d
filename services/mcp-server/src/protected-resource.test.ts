import { challenge, metadataDocument, metadataPathsOf, metadataUrlOf } from './protected-resource';

test('the metadata of a resource with a path lives at the path-suffixed address; the bare one is answered too', () => {
  expect(metadataUrlOf('https://floe.example.com/mcp')).toBe('https://floe.example.com/.well-known/oauth-protected-resource/mcp');
  expect(metadataPathsOf('https://floe.example.com/mcp')).toEqual(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']);
  expect(metadataPathsOf('https://mcp.example.com/')).toEqual(['/.well-known/oauth-protected-resource']);
});

test('the document names the resource, its one authorization server, the scopes and the header method', () => {
  expect(metadataDocument({ mcpUrl: 'https://f.example/mcp', baseUrl: 'https://f.example' })).toEqual({
    resource: 'https://f.example/mcp', authorization_servers: ['https://f.example'], scopes_supported: ['catalogs:read', 'catalogs:write'],
    bearer_methods_supported: ['header'], resource_name: 'Floe MCP tool server',
  });
});

test('the challenge: the pointer alone without a token; with invalid_token and a description stripped of quotes when one was refused', () => {
  const url = 'https://f.example/.well-known/oauth-protected-resource/mcp';
  expect(challenge(url)).toBe(`Bearer resource_metadata="${url}"`);
  expect(challenge(url, { error: 'invalid_token', description: 'the "aud" is wrong' }))
    .toBe(`Bearer resource_metadata="${url}", error="invalid_token", error_description="the aud is wrong"`);
});
