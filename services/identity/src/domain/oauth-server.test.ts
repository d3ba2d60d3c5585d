import type { AttemptLimit } from '@floe/auth';
import type { PrismaClient } from '@floe/db';
import { registerClient } from './oauth-register';
import { authorizationServerMetadata, OAuthError } from './oauth-server';

// The deployment setting that switches dynamic registration off (the e2e stack runs with it on).
describe('dynamic registration switched off', () => {
  const config = { baseUrl: 'https://floe.example.com', oauth: { dynamicRegistration: false, metadataAllowHosts: [], mcpUrl: 'https://floe.example.com/mcp' } };

  test('the RFC 8414 document names no registration endpoint', () => {
    const doc = authorizationServerMetadata(config);
    expect(doc).not.toHaveProperty('registration_endpoint');
    expect(authorizationServerMetadata({ ...config, oauth: { ...config.oauth, dynamicRegistration: true } }).registration_endpoint).toBe('https://floe.example.com/oauth/register');
  });

  test('a registration is 403 access_denied before anything is counted or written', async () => {
    const untouched = new Proxy({}, { get: () => { throw new Error('touched'); } });
    const refusal = await registerClient(
      { prisma: untouched as PrismaClient, registrations: untouched as AttemptLimit, config },
      '127.0.0.1', { client_name: 'x', redirect_uris: ['https://tool.example.com/cb'] },
    ).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(OAuthError);
    expect(refusal).toMatchObject({ status: 403, error: 'access_denied' });
  });
});
