import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { AttemptLimit } from '@floe/auth';
import type { Prisma } from '@floe/db';
import { HttpError, rateLimited } from '@floe/http';
import { countWrongAttempt, lockPendingCode, pendingCode, type CodePurpose, type EmailCodeRecord } from '../store/email-codes';
import type { Db } from '@floe/db';

// The e-mail codes of sign-up and recovery (spec: Limits): six digits, valid
// 600 s, five wrong attempts and the code is spent; a new code no sooner
// than 60 s after the last; five starts per hour per address, shared by
// sign-up, recovery and password reset. Only a hash of a code is stored, and
// a code is compared in constant time.

export const CODE_SECONDS = 600;
export const CODE_LENGTH = 6;
export const MAX_ATTEMPTS = 5;
export const RESEND_SECONDS = 60;
export const STARTS_PER_HOUR = 5;

export const newCode = (): string => String(randomInt(0, 10 ** CODE_LENGTH)).padStart(CODE_LENGTH, '0');

/** The stored form of a code: bound to the address, so one address's hash says nothing of another's. */
export const codeHash = (email: string, code: string): string => createHash('sha256').update(email).update('\0').update(code).digest('hex');

function codeMatches(email: string, code: string, hash: string): boolean {
  const a = Buffer.from(codeHash(email, code), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Every start that mails an address (sign-up and recovery codes, set-password
 * and reset links): 429 when the last one to it went out less than 60 s ago,
 * or the address has used its starts for the hour (the budget is taken only
 * when the start goes ahead).
 */
export async function admitMail(starts: AttemptLimit, email: string, lastSentAt: Date | null, what: 'code' | 'link'): Promise<void> {
  const age = lastSentAt ? (Date.now() - lastSentAt.getTime()) / 1000 : Infinity;
  if (age < RESEND_SECONDS) throw rateLimited(Math.ceil(RESEND_SECONDS - age), `a ${what} was sent less than ${RESEND_SECONDS} s ago; use it, or ask again shortly`);
  const wait = await starts.take(email);
  if (wait !== null) throw rateLimited(wait, `at most ${STARTS_PER_HOUR} mails an hour for one address`);
}

/** admitMail for a code; the pending code it replaces, if any. */
export async function admitStart(d: { prisma: Db; starts: AttemptLimit }, email: string, purpose: CodePurpose): Promise<EmailCodeRecord | null> {
  const existing = await pendingCode(d.prisma, email, purpose);
  await admitMail(d.starts, email, existing?.createdAt ?? null, 'code');
  return existing;
}

export type CodeCheck = { ok: true; code: EmailCodeRecord } | { ok: false; error: HttpError };

/**
 * Checks a code under its row's lock, inside the caller's transaction. A
 * wrong code is counted here and answered as an outcome, not thrown, so the
 * count commits with the transaction.
 */
export async function checkCode(tx: Prisma.TransactionClient, email: string, purpose: CodePurpose, code: string, missing: () => HttpError): Promise<CodeCheck> {
  const pending = await lockPendingCode(tx, email, purpose);
  if (!pending) return { ok: false, error: missing() };
  if (pending.expiresAt.getTime() <= Date.now()) {
    return { ok: false, error: new HttpError(410, 'code_expired', 'the code has expired; ask for a new one', { remedy: `POST /v1/${purpose === 'signup' ? 'signup' : 'recover'}/start` }) };
  }
  if (pending.attempts >= MAX_ATTEMPTS) return { ok: false, error: invalidCode(0) };
  if (!codeMatches(email, code, pending.codeHash)) {
    const attempts = await countWrongAttempt(tx, email, purpose);
    return { ok: false, error: invalidCode(Math.max(0, MAX_ATTEMPTS - attempts)) };
  }
  return { ok: true, code: pending };
}

function invalidCode(attemptsLeft: number): HttpError {
  return new HttpError(401, 'invalid_code', attemptsLeft > 0 ? 'the code is wrong' : 'the code is wrong too often; ask for a new one', { attempts_left: attemptsLeft });
}

/**
 * Development and test stacks only: the code in plain text for
 * GET /internal/signup-codes/{email}, kept in Redis as long as the code lives.
 * Production keeps nothing but the hash.
 */
export type DevSecretPurpose = CodePurpose | 'welcome' | 'reset';

export class DevCodes {
  constructor(private readonly redis: Redis, private readonly prefix: string, private readonly enabled: boolean) {}

  /** Keeps a code, or a mailed link's token (`welcome`, `reset`), for as long as it is valid. */
  async keep(email: string, purpose: DevSecretPurpose, secret: string, seconds = CODE_SECONDS): Promise<void> {
    if (this.enabled) await this.redis.set(this.key(email, purpose), secret, 'EX', seconds);
  }

  async read(email: string, purpose: DevSecretPurpose): Promise<string | null> {
    return this.enabled ? this.redis.get(this.key(email, purpose)) : null;
  }

  private key(email: string, purpose: DevSecretPurpose): string {
    return `${this.prefix}dev:code:${purpose}:${email}`;
  }
}
