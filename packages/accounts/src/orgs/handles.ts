import { RESERVED_WORDS } from '@floe/config';

// Organisation handles (spec: Organisation): one character, or 3-40 of
// lowercase letters, digits and dashes, starting and ending with a letter or
// digit, never two dashes in a row (the double dash separates handle and
// catalog in bucket names), never a reserved word.

const GRAMMAR = /^(?:[a-z0-9]|[a-z0-9](?:[a-z0-9]|-(?!-)){1,38}[a-z0-9])$/;

export function handleProblem(handle: string): 'invalid' | 'double_dash' | 'reserved' | null {
  if (handle.includes('--')) return 'double_dash';
  if (!GRAMMAR.test(handle) || handle.length === 2) return 'invalid';
  if (RESERVED_WORDS.includes(handle)) return 'reserved';
  return null;
}

/** A valid handle derived from a name; callers add a numeric suffix when it is taken. */
export function handleFrom(name: string): string {
  let h = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/-+/g, '-').replace(/^-|-$/g, '').slice(0, 40).replace(/-$/, '');
  if (h.length === 0) h = 'team';
  if (h.length === 2) h = `${h}-team`;
  if (RESERVED_WORDS.includes(h)) h = `${h}-team`;
  return h;
}

/** `base`, then `base-2`, `base-3`, … kept within 40 characters. */
export function handleCandidates(base: string, count = 50): string[] {
  const out = [base];
  for (let i = 2; out.length < count; i++) {
    const suffix = `-${i}`;
    out.push(`${base.slice(0, 40 - suffix.length).replace(/-$/, '')}${suffix}`);
  }
  return out;
}
