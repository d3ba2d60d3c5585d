import { createLogger } from '@floe/http';
import { signingOptions, verifySigning, type PasskeyDeps } from './passkeys';

// A deployment that does not sign in with passkeys (FLOE_PASSKEY_LOGIN=false)
// refuses the passwordless ceremony before anything is read or written: the
// store and Redis below are never reached (a call would throw on them).

const unreachable = new Proxy({}, { get: () => { throw new Error('reached the store'); } });
const deps = {
  prisma: unreachable, redis: unreachable, logger: createLogger('test', 'error'),
  config: { redisPrefix: 'test:', webauthn: { rpId: 'localhost', rpName: 'Floe', origins: ['http://localhost:8080'], passkeyLogin: false } },
} as unknown as PasskeyDeps;

test('passwordless passkey sign-in switched off: 403 passkeys_disabled for the options and the answer', async () => {
  await expect(signingOptions(deps, 'login', null)).rejects.toMatchObject({ status: 403, code: 'passkeys_disabled' });
  await expect(verifySigning(deps, 'login', 'wac_x', { id: 'x' })).rejects.toMatchObject({ status: 403, code: 'passkeys_disabled' });
});
