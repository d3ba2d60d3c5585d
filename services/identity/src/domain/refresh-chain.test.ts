import { placeInChain, RACE_SECONDS } from './refresh-chain';

const now = Date.UTC(2026, 10, 26, 12);
const chain = { refreshHash: 'current', previousRefreshHash: 'previous', rotatedAt: new Date(now) };
/** Whether the retired hashes hold the presented one. */
const retired = (held: boolean) => async () => held;
const never = async () => {
  throw new Error('the retired hashes are read only for a hash the row does not name');
};

describe('placeInChain', () => {
  test('the current token refreshes; the row answers without reading the retired hashes', async () => {
    expect(await placeInChain(chain, 'current', never, now)).toBe('current');
  });

  test('the token the last rotation replaced: raced within the window, reused after it', async () => {
    expect(await placeInChain(chain, 'previous', never, now + 2_000)).toBe('raced');
    expect(await placeInChain(chain, 'previous', never, now + RACE_SECONDS * 1000)).toBe('raced');
    expect(await placeInChain(chain, 'previous', never, now + (RACE_SECONDS + 1) * 1000)).toBe('reused');
    expect(await placeInChain({ ...chain, rotatedAt: null }, 'previous', never, now)).toBe('reused');
  });

  test('an older token of the chain is reused at any age, even within the race window of the last rotation', async () => {
    expect(await placeInChain(chain, 'older', retired(true), now)).toBe('reused');
  });

  test('a hash of no chain is not placed', async () => {
    expect(await placeInChain(chain, 'stranger', retired(false), now)).toBeNull();
  });
});
