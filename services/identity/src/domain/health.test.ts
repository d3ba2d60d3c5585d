import { createServer } from 'node:net';
import { throwawayDatabase } from '../../../../tests/support/throwaway-db';
import { createHealthCheck } from './health';

// Against the real Postgres; the catalog is an address nothing answers on.
const db = throwawayDatabase('identity_health');

/** A loopback port that was free a moment ago, with nothing listening. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('ok is false while the catalog does not answer its config route, though the database and the signing key do', async () => {
  const health = createHealthCheck({
    db: db.pool(),
    signingKeys: { currentSigner: async () => ({ kid: 'k1' }) },
    config: { catalogUrl: `http://127.0.0.1:${await closedPort()}`, baseUrl: 'http://floe.test' },
  });
  expect(await health()).toEqual({ ok: false, catalog_ok: false, issuer: 'http://floe.test', kid: 'k1' });
});
