import { reachesSinkRoot, SINK_ROOT } from '@floe/ingest';

// What an uploader may be called and where it may write. Pure, so each rule
// is tested beside it (uploader-rules.test.ts). Prefixes end up inside an IAM
// resource (`arn:aws:s3:::<bucket>/<prefix>*`), so anything that would widen
// that resource — IAM wildcards, policy variables — is refused, as is any
// prefix that reaches Floe's own `_sink/` (where sink batches are written).

/** Letters, digits, `.`, `_` and `-`, 1-64 characters, beginning with a letter or digit. */
export const UPLOADER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const UPLOADER_NAME_RULE = 'an uploader name is 1-64 letters, digits, ".", "_" and "-", beginning with a letter or digit';

export const MAX_PREFIX_LENGTH = 256;
/** Safe object-key characters (S3's own list, without `*`) and `/`. */
const PREFIX_CHARS = /^[A-Za-z0-9!_.'()/-]+$/;

/** Active uploaders one catalog may hold (409 `limit_exceeded` beyond). */
export const UPLOADERS_PER_CATALOG = 50;

/** Where an uploader writes when no prefix is given: a folder of its own name. */
export const defaultPrefix = (name: string): string => `${name}/`;

/** Why a prefix is refused, or null when it is fine. */
export function prefixProblem(prefix: string): string | null {
  if (prefix.length === 0 || prefix.length > MAX_PREFIX_LENGTH) return `a prefix is 1-${MAX_PREFIX_LENGTH} characters`;
  if (prefix.startsWith('/')) return 'a prefix does not begin with "/"';
  if (!PREFIX_CHARS.test(prefix)) return 'a prefix is letters, digits, "/" and !_.\'()- only (no wildcards, spaces or policy variables)';
  if (prefix.split('/').some((seg) => seg === '..' || seg === '.')) return 'a prefix has no "." or ".." segment';
  if (prefix.includes('//')) return 'a prefix has no empty segment ("//")';
  if (reachesSinkRoot(prefix)) return `${SINK_ROOT} is Floe's own (sink batches); choose another prefix`;
  return null;
}
