import { createServer, type AddressInfo } from 'node:net';
import { loadConfig } from '@floe/config';
import { startProviderSignIn, type ProviderSignInDeps } from './provider-sign-in';

// A provider that does not answer: the start is 502 `google_unavailable`,
// and the failed discovery is not kept, so the next start asks again. (The
// answers of a provider that does answer are tests/e2e/sign-in-with-provider.test.ts.)

/** A loopback port nothing listens on: a connection to it is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('a provider whose discovery cannot be fetched is 502 google_unavailable, each time it is asked', async () => {
  const config = loadConfig({});
  const provider = { id: 'down', name: 'A provider that is down', issuer: `http://127.0.0.1:${await closedPort()}`, clientId: 'c', clientSecret: 's' };
  // The start reads nothing but the configuration before it asks the provider.
  const d = { config: { ...config, signIn: { providers: [provider], origins: config.signIn.origins } } } as unknown as ProviderSignInDeps;
  for (let i = 0; i < 2; i++) {
    await expect(startProviderSignIn(d, 'down', null, { acceptTerms: true })).rejects.toMatchObject({
      status: 502, code: 'google_unavailable', message: expect.stringMatching(/^A provider that is down did not answer as it should \(its discovery document: /),
    });
  }
});
