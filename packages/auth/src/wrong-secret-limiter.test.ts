import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { WRONG_SECRETS_ALLOWED, WRONG_SECRET_WINDOW_SECONDS, WrongSecretLimiter } from './wrong-secret-limiter';

// Against the real Redis: the limit holds when the attempts arrive at once,
// which a check-then-increment count does not (every attempt passed the check
// before the first failure was counted).

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `test:wsl:${randomBytes(4).toString('hex')}:`;
const limiter = new WrongSecretLimiter(redis, prefix);

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const fresh = () => `k${randomBytes(6).toString('hex')}`;

test('twenty concurrent wrong secrets: exactly ten are compared (wrong), ten refused uncompared with a Retry-After', async () => {
  const keyId = fresh();
  let compared = 0;
  const results = await Promise.all(Array.from({ length: 20 }, () => limiter.judge(keyId, '203.0.113.7', async () => {
    compared += 1;
    await sleep(20); // a slow comparison, so every attempt is in flight at once
    return false;
  })));
  expect(compared).toBe(WRONG_SECRETS_ALLOWED);
  expect(results.filter((r) => r.verdict === 'wrong')).toHaveLength(10);
  const refused = results.filter((r) => r.verdict === 'refused');
  expect(refused).toHaveLength(10);
  for (const r of refused) {
    expect(r.verdict === 'refused' && r.retryAfterSeconds).toBeGreaterThan(0);
    expect(r.verdict === 'refused' && r.retryAfterSeconds).toBeLessThanOrEqual(WRONG_SECRET_WINDOW_SECONDS);
  }
  // The hot path's one-round-trip read agrees, and a right secret is refused too, uncompared.
  expect(WrongSecretLimiter.isBlocked(await redis.get(limiter.counterKey(keyId, '203.0.113.7')))).toBe(true);
  let rightCompared = false;
  expect((await limiter.judge(keyId, '203.0.113.7', () => (rightCompared = true))).verdict).toBe('refused');
  expect(rightCompared).toBe(false);
  expect(await limiter.retryAfterSeconds(keyId, '203.0.113.7')).toBeGreaterThan(0);
});

test('a right secret gives its point back: many right attempts never block, and leave the count where it was', async () => {
  const keyId = fresh();
  for (let i = 0; i < 3; i++) expect((await limiter.judge(keyId, '198.51.100.1', () => false)).verdict).toBe('wrong');
  const rights = await Promise.all(Array.from({ length: 5 }, () => limiter.judge(keyId, '198.51.100.1', () => true)));
  expect(rights.map((r) => r.verdict)).toEqual(Array(5).fill('right'));
  for (let i = 0; i < 30; i++) expect((await limiter.judge(keyId, '198.51.100.1', () => true)).verdict).toBe('right');
  expect(await redis.get(limiter.counterKey(keyId, '198.51.100.1'))).toBe('3');
  // Seven wrong ones are left, then the limit.
  const after = await Promise.all(Array.from({ length: 9 }, () => limiter.judge(keyId, '198.51.100.1', () => false)));
  expect(after.filter((r) => r.verdict === 'wrong')).toHaveLength(7);
  expect(after.filter((r) => r.verdict === 'refused')).toHaveLength(2);
});

test('a comparison that fails to judge (throws) is not a wrong secret: its point is given back', async () => {
  const keyId = fresh();
  for (let i = 0; i < 12; i++) {
    await expect(limiter.judge(keyId, '198.51.100.2', () => { throw new Error('database down'); })).rejects.toThrow('database down');
  }
  expect(await redis.get(limiter.counterKey(keyId, '198.51.100.2'))).toBe('0');
  expect((await limiter.judge(keyId, '198.51.100.2', () => false)).verdict).toBe('wrong');
});

test('the count is per key id and per address', async () => {
  const keyId = fresh();
  await Promise.all(Array.from({ length: 10 }, () => limiter.judge(keyId, '192.0.2.1', () => false)));
  expect((await limiter.judge(keyId, '192.0.2.1', () => true)).verdict).toBe('refused');
  expect((await limiter.judge(keyId, '192.0.2.2', () => true)).verdict).toBe('right');
  expect((await limiter.judge(fresh(), '192.0.2.1', () => true)).verdict).toBe('right');
});
