import { redis, stack } from '../e2e/helpers';

// The development mail server's inbox (maildev's REST API), as the tests read
// the mails the stack sent.

export interface InboxMail {
  id: string;
  subject: string;
  text: string;
  time: string;
  to: Array<{ address: string }>;
}

/** Every mail to `address`, oldest first. */
export async function mailsTo(address: string): Promise<InboxMail[]> {
  const inbox = stack().mail_inbox_url;
  if (!inbox) throw new Error('this stack runs no development mail server');
  const res = await fetch(`${inbox}/api/email?to.address=${encodeURIComponent(address)}`);
  if (!res.ok) throw new Error(`the mail server's inbox answered ${res.status}`);
  const mails = (await res.json()) as InboxMail[];
  return mails.sort((a, b) => a.time.localeCompare(b.time));
}

/** The newest mail to `address`, waiting up to a few seconds for it to arrive. */
export async function newestMailTo(address: string, count = 1, timeoutMs = 5000): Promise<InboxMail> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const mails = await mailsTo(address);
    if (mails.length >= count) return mails[mails.length - 1];
    if (Date.now() > until) throw new Error(`no mail #${count} to ${address} within ${timeoutMs} ms (found ${mails.length})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The six-digit code in a mail's text. */
export function codeIn(mail: InboxMail): string {
  const m = /\b(\d{6})\b/.exec(mail.text);
  if (!m) throw new Error(`no code in the mail "${mail.subject}"`);
  return m[1];
}

/** The token of the `/app/<page>?token=…` link in a mail. */
export function linkTokenIn(mail: InboxMail, page: 'welcome' | 'reset'): string {
  const m = new RegExp(`/app/${page}\\?token=([A-Za-z0-9_%-]+)`).exec(mail.text);
  if (!m) throw new Error(`no /app/${page} link in the mail "${mail.subject}"`);
  return decodeURIComponent(m[1]);
}

/**
 * What a minute passing does to identity's 60 s between two mails of one
 * kind to an address (its Redis gate, services/identity/src/domain/email-codes.ts
 * ResendGate): lifted, for tests that age the stored code or link too.
 */
export async function liftResendGate(address: string, kinds: Array<'signup' | 'recovery' | 'welcome' | 'reset'> = ['signup', 'recovery', 'welcome', 'reset']): Promise<void> {
  const r = redis();
  try {
    await r.del(...kinds.map((k) => `${stack().redis_prefix}mail-resend:${k}:${address.toLowerCase()}`));
  } finally {
    r.disconnect();
  }
}
