// The accounts of the development identity provider: whoever signs in is the
// e-mail address typed as the login (lower-cased), so a test knows the
// subject and claims a sign-in will yield before it starts. The one home of
// that rule: the provider (dev-identity-provider.ts) and the tests'
// helpers (tests/support/dev-identity.ts) both import it.
import { createHash } from 'node:crypto';

export interface DevAccountClaims {
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
}

/** The subject of an address: stable across restarts and stacks, and no address in it. */
export function devSubjectOf(email: string): string {
  return `dev-${createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 20)}`;
}

/**
 * The claims of the account a login names. An address whose local part
 * carries `+unverified` (`ann+unverified@example.com`) is not verified:
 * how a test gets an unverified address from a provider that asks nothing.
 * A login `address#label` is another account claiming the same address
 * (`ann@example.com#work`: its own subject, the address ann@example.com), as
 * when an address moves from one provider account to another.
 */
export function devAccountOf(login: string): DevAccountClaims {
  const typed = login.trim().toLowerCase();
  const hash = typed.indexOf('#');
  const email = hash === -1 ? typed : typed.slice(0, hash);
  const at = email.lastIndexOf('@');
  const localPart = at === -1 ? email : email.slice(0, at);
  return { sub: devSubjectOf(typed), email, email_verified: !localPart.includes('+unverified'), name: localPart };
}
