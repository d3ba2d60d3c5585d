import { hash, verify } from '@node-rs/argon2';
import { badRequest } from '@floe/http';

// Passwords (spec: Limits): 12 to 256 characters, not containing the address
// or the organisation's name; stored as argon2id (@node-rs/argon2). The cost:
// 64 MiB and three passes, about 50-90 ms per hash on this deployment's
// 2 cores (OWASP's floor is 19 MiB and two passes); bench/auth prints it.

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;
// algorithm 2 is Argon2id (the package's const enum cannot be read under isolated modules).
export const ARGON2_COST = { algorithm: 2, memoryCost: 65_536, timeCost: 3, parallelism: 1 } as const;

/** 400 `password_too_short` | `password_too_long` | `password_contains_identity`, naming the field. */
export function checkPassword(password: string, identity: { email: string; orgName?: string | null }, field = 'password'): void {
  if (password.length < PASSWORD_MIN) throw badRequest('password_too_short', `a password has at least ${PASSWORD_MIN} characters`, { field, limit_value: PASSWORD_MIN });
  if (password.length > PASSWORD_MAX) throw badRequest('password_too_long', `a password has at most ${PASSWORD_MAX} characters`, { field, limit_value: PASSWORD_MAX });
  const lower = password.toLowerCase();
  const words = [identity.email.toLowerCase(), identity.email.split('@')[0].toLowerCase(), identity.orgName?.toLowerCase() ?? ''].filter((w) => w.length >= 3);
  if (words.some((w) => lower.includes(w))) {
    throw badRequest('password_contains_identity', 'a password must not contain your address or your organisation\'s name', { field });
  }
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2_COST);
}

// A hash of a password nobody has: an unknown address costs a login the same time as a wrong password.
const NOBODY = hash('nobody has this password', ARGON2_COST);

/** Whether `password` matches the stored hash; an account without one is compared with a dummy, in the same time. */
export async function passwordMatches(stored: string | null, password: string): Promise<boolean> {
  if (!stored) {
    await verify(await NOBODY, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
