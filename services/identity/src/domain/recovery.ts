import type { Request } from 'express';
import { accountByEmail, markEmailVerified, issueApiKey } from '@floe/accounts';
import { notFound, writeAudit } from '@floe/http';
import { recoveryCodeMail } from '../mail/messages';
import { deleteCode, putCode } from '../store/email-codes';
import { CODE_SECONDS, checkCode, codeHash, newCode, withCodeAdmitted } from './email-codes';
import type { SignupDeps } from './signup';

// Spec: POST /v1/recover/start and POST /v1/recover/verify. Recovery mints a
// new API key for the account holding the address; the earlier keys keep
// working. The start answers alike whether or not the address has an account
// (only `delivery` says whether a mail went out), and spends the address's
// and the caller's start budgets either way.

export async function startRecovery(d: SignupDeps, req: Request, email: string) {
  const delivery = await withCodeAdmitted(d, { email, purpose: 'recovery', caller: req.ip ?? 'unknown' }, async () => {
    const account = await accountByEmail(d.prisma, email);
    if (!account) return 'smtp' as const;
    const code = newCode();
    const sent = await d.mailer.send(recoveryCodeMail(email, code, CODE_SECONDS / 60));
    await putCode(d.prisma, { email, purpose: 'recovery', codeHash: codeHash(email, code), details: { principal_id: account.principalId }, expiresAt: new Date(Date.now() + CODE_SECONDS * 1000) });
    await d.devCodes.keep(email, 'recovery', code);
    return sent;
  });
  await writeAudit(d.db, req, { action: 'recovery.start', actorId: null, actorKind: null, targetType: 'email', targetId: email, data: { delivery } });
  return {
    email,
    delivery,
    expires_in: CODE_SECONDS,
    next: ['POST /v1/recover/verify with {"email", "code"} — a new API key; your other keys keep working'],
  };
}

export async function verifyRecovery(d: SignupDeps, req: Request, v: { email: string; code: string }) {
  const outcome = await d.prisma.$transaction(async (tx) => {
    const check = await checkCode(tx, v.email, 'recovery', v.code, () => notFound('no_pending_recovery', `no recovery is waiting for ${v.email}; start with POST /v1/recover/start`));
    if (!check.ok) return check;
    const account = await accountByEmail(tx, v.email);
    await deleteCode(tx, v.email, 'recovery');
    if (!account || account.principalId !== check.code.details.principal_id) {
      return { ok: false as const, error: notFound('no_pending_recovery', `no recovery is waiting for ${v.email}; start with POST /v1/recover/start`) };
    }
    await markEmailVerified(tx, account.principalId);
    return { ok: true as const, account, key: await issueApiKey(tx, account.principalId, 'recovery') };
  }, { maxWait: 30_000, timeout: 30_000 });
  if (!outcome.ok) throw outcome.error;
  const { account, key } = outcome;
  req.caller = { principalId: account.principalId, kind: 'human', email: v.email, via: 'api_key', keyId: key.keyId, sessionId: null };
  await writeAudit(d.db, req, { action: 'recovery.verify', targetType: 'api_key', targetId: key.keyId, data: { email: v.email } });
  return {
    api_key: key.apiKey,
    key_id: key.keyId,
    principal_id: account.principalId,
    note: 'Shown once. Your earlier keys keep working until you revoke them (DELETE /v1/api-keys/{key_id}).',
  };
}
