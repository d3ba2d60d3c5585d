import { z } from 'zod';

// What a namespace level may be, checked wherever the catalog takes a new
// namespace from input (createNamespace; tables, views, registrations and
// renames go into namespaces that must exist already). Levels are kept
// joined by U+001F and shown joined by "." (the control plane's `ns.name`,
// the spec's table notation), and they end up in paths and object keys; a
// level that cannot survive those round trips broke listings for a whole
// warehouse (GET /v1/tables of the control plane). So a level is 1-255
// characters and never:
//   - contains "." (which also rules out the path segments "." and "..");
//   - contains "/";
//   - contains a control character, U+0000-U+001F or U+007F (U+001F is the
//     level separator; NUL cannot be stored).
// Everything else printable is allowed, "*" included.

export const MAX_LEVEL_LENGTH = 255;
export const MAX_LEVELS = 16;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why `level` cannot be a namespace level, or null when it can. */
export function namespaceLevelProblem(level: string): string | null {
  if (level.length === 0) return 'a namespace level may not be empty';
  if (level.length > MAX_LEVEL_LENGTH) return `a namespace level is at most ${MAX_LEVEL_LENGTH} characters`;
  if (level.includes('.')) return `namespace level ${JSON.stringify(level)} contains "."; levels are joined with "." in table names, so a level may not contain one (nor be "." or "..")`;
  if (level.includes('/')) return `namespace level ${JSON.stringify(level)} contains "/", which paths and object keys would split`;
  if (CONTROL.test(level)) return `namespace level ${JSON.stringify(level)} contains a control character (U+0000-U+001F, U+007F; U+001F separates levels)`;
  return null;
}

/** A new namespace's level, as a zod schema: the message names the rule broken. */
export const NamespaceLevel = z.string().superRefine((level, ctx) => {
  const problem = namespaceLevelProblem(level);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

export const NewNamespace = z.array(NamespaceLevel).min(1).max(MAX_LEVELS);
