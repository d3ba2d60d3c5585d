// Which Floe a command talks to and with which key. One rule for every
// command: the base URL comes from `--base-url`, then `FLOE_BASE_URL`, then
// the chosen profile; the key from `FLOE_API_KEY`, then the chosen profile.
import { CliError, EXIT_AUTH, usageError } from './errors.js';
import type { StoredLogin } from './profiles.js';

export type Source = 'flag' | 'env' | 'login';

export interface Resolved<T> {
  value: T;
  source: Source;
}

/** Trims and drops trailing slashes; refuses anything that is not an http(s) URL. */
export function normaliseBaseUrl(raw: string, from: string): string {
  const trimmed = raw.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw usageError(`${from} is not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`${from} must be an http or https URL, not ${url.protocol}`);
  return trimmed;
}

/** The base URL by precedence, or null when none of the three names one. */
export function baseUrlFrom(flag: string | undefined, env: NodeJS.ProcessEnv, login: StoredLogin | null): Resolved<string> | null {
  if (flag) return { value: normaliseBaseUrl(flag, '--base-url'), source: 'flag' };
  if (env.FLOE_BASE_URL) return { value: normaliseBaseUrl(env.FLOE_BASE_URL, 'FLOE_BASE_URL'), source: 'env' };
  if (login) return { value: normaliseBaseUrl(login.base_url, 'the stored login'), source: 'login' };
  return null;
}

export function requireBaseUrl(flag: string | undefined, env: NodeJS.ProcessEnv, login: StoredLogin | null): Resolved<string> {
  const found = baseUrlFrom(flag, env, login);
  if (!found) throw usageError('no Floe base URL: pass --base-url <url>, set FLOE_BASE_URL, or run `floe auth login --base-url <url>`');
  return found;
}

/** `FLOE_API_KEY` wins over the stored login's key. */
export function apiKeyFrom(env: NodeJS.ProcessEnv, login: StoredLogin | null): Resolved<string> | null {
  if (env.FLOE_API_KEY) return { value: env.FLOE_API_KEY.trim(), source: 'env' };
  if (login) return { value: login.api_key, source: 'login' };
  return null;
}

export function requireApiKey(env: NodeJS.ProcessEnv, login: StoredLogin | null): Resolved<string> {
  const found = apiKeyFrom(env, login);
  if (!found) throw new CliError('not logged in', EXIT_AUTH, 'Run `floe auth login`, or set FLOE_API_KEY to an API key.', 'not_logged_in');
  return found;
}

/** The key id inside `al_live_<key_id>_<secret>`, or null for another credential (a token). */
export function keyIdOf(apiKey: string): string | null {
  const m = /^al_live_([^_]+)_/.exec(apiKey);
  return m ? m[1] : null;
}
