import { createRequire } from 'node:module';
import { badRequest } from '@floe/http';

// Spec: 400 `disposable_email` on the sign-up routes and the provider
// sign-in's callback. The list of throwaway-mail domains is the community's
// (npm disposable-email-domains, over 100,000 of them), not Floe's own; a
// subdomain of a listed domain counts as listed.

const listed = new Set<string>(createRequire(import.meta.url)('disposable-email-domains') as string[]);

/** Whether `email`'s domain, or a domain it is under, is a throwaway-mail service. */
export function isDisposableAddress(email: string): boolean {
  const labels = email.slice(email.lastIndexOf('@') + 1).toLowerCase().split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    if (listed.has(labels.slice(i).join('.'))) return true;
  }
  return false;
}

/** 400 `disposable_email` for an address at a throwaway-mail service. */
export function refuseDisposableAddress(email: string): void {
  if (isDisposableAddress(email)) {
    throw badRequest('disposable_email', `${email.slice(email.lastIndexOf('@') + 1)} hands out throwaway addresses; use an address you keep`, { field: 'email' });
  }
}
