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
//
// The per-address budget alone let one client mail any number of addresses:
// every start that mails (the four: sign-up code, password sign-up link,
// recovery code, reset link) also spends one budget per caller address,
// FLOE_MAIL_STARTS_PER_CALLER_PER_HOUR (5 an hour), shared by the four. The
// 60 s rule holds for starts fired together too (ResendGate).

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
 * The 60 s rule held under concurrency: a key in Redis per address and
 * purpose, taken with SET NX for 60 s before a start goes ahead, so of starts
 * racing to mail one address one goes ahead and the others are 429. It is
 * taken whether or not an account exists (recovery and reset answer alike
 * either way), and handed back when the start fails before its mail.
 */
export class ResendGate {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  private key(purpose: string, email: string): string {
    return `${this.prefix}${purpose}:${email.toLowerCase()}`;
  }

  /** Null when taken now; else the seconds until it is free. */
  async take(purpose: string, email: string): Promise<number | null> {
    const key = this.key(purpose, email);
    if ((await this.redis.set(key, '1', 'EX', RESEND_SECONDS, 'NX')) === 'OK') return null;
    return Math.max(1, await this.redis.ttl(key));
  }

  async release(purpose: string, email: string): Promise<void> {
    await this.redis.del(this.key(purpose, email));
  }
}

/** What a mailing start spends: the resend gate, and the budgets per e-mail address (`starts`) and per caller address (`mailCallers`), each in Redis, taken atomically. */
export interface MailBudgets {
  resends: ResendGate;
  starts: AttemptLimit;
  mailCallers: AttemptLimit;
}

/** Who a start mails, for what, and who asks: the e-mail address, the purpose, and the caller's address as the gateway proves it (req.ip). */
export interface MailAsk {
  email: string;
  purpose: CodePurpose | 'welcome' | 'reset';
  caller: string;
}

/**
 * Every start that mails an address (sign-up and recovery codes, set-password
 * and reset links) runs its work through here: 429 when the last one to it
 * went out less than 60 s ago (the stored code or link says so, and the
 * resend gate holds it against starts racing), when the caller's address has
 * used its mailing starts for the hour, or when the e-mail address has. The
 * gate is taken first and handed back when a budget refuses or the work fails
 * (a handle taken, a mail server refusing), so a retry can go ahead at once;
 * the caller's budget is asked before the address's, so a caller past it
 * spends no address's budget. A start let through counts in both budgets
 * even if its work then fails.
 */
export async function withMailAdmitted<T>(d: MailBudgets, ask: MailAsk, lastSentAt: Date | null, what: 'code' | 'link', work: () => Promise<T>): Promise<T> {
  const tooSoon = (seconds: number) => rateLimited(seconds, `a ${what} was sent less than ${RESEND_SECONDS} s ago; use it, or ask again shortly`);
  const age = lastSentAt ? (Date.now() - lastSentAt.getTime()) / 1000 : Infinity;
  if (age < RESEND_SECONDS) throw tooSoon(Math.ceil(RESEND_SECONDS - age));
  const gateWait = await d.resends.take(ask.purpose, ask.email);
  if (gateWait !== null) throw tooSoon(gateWait);
  try {
    const callerWait = await d.mailCallers.take(ask.caller);
    if (callerWait !== null) {
      throw rateLimited(callerWait, `at most ${d.mailCallers.points} sign-up, recovery and reset mails an hour from one address`);
    }
    const wait = await d.starts.take(ask.email);
    if (wait !== null) throw rateLimited(wait, `at most ${STARTS_PER_HOUR} mails an hour for one address`);
    return await work();
  } catch (err) {
    await d.resends.release(ask.purpose, ask.email).catch(() => undefined);
    throw err;
  }
}

/** withMailAdmitted for a code; `work` is given the pending code it replaces, if any. */
export async function withCodeAdmitted<T>(
  d: MailBudgets & { prisma: Db }, ask: MailAsk & { purpose: CodePurpose }, work: (existing: EmailCodeRecord | null) => Promise<T>,
): Promise<T> {
  const existing = await pendingCode(d.prisma, ask.email, ask.purpose);
  return withMailAdmitted(d, ask, existing?.createdAt ?? null, 'code', () => work(existing));
}

/** Where a new code comes from, for each purpose. */
const ASK_AGAIN: Record<CodePurpose, string> = {
  signup: 'POST /v1/signup/start',
  recovery: 'POST /v1/recover/start',
  link: 'sign in with the provider again (POST /v1/auth/oidc/{provider}/start)',
};

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
    return { ok: false, error: new HttpError(410, 'code_expired', 'the code has expired; ask for a new one', { remedy: ASK_AGAIN[purpose] }) };
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
