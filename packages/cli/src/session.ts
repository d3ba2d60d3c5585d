// The Floe a command talks to, as whom, for which organisation: the global
// options (--base-url, --profile, --org, --json, --yes) applied to the chosen
// profile and the environment (context.ts's precedence), and the typed API
// client made from them.
import type { Command } from 'commander';
import { FloeApi, type ApiOptions, type Organisation } from './api-client.js';
import { requireApiKey, requireBaseUrl, type Resolved } from './context.js';
import { CliError, usageError } from './errors.js';
import type { Io } from './io.js';
import { loadLogin } from './logins.js';
import type { StoredLogin } from './profiles.js';

/** The options every command takes (program.ts). */
export interface Globals {
  baseUrl?: string;
  profile?: string;
  org?: string;
  json?: boolean;
  yes?: boolean;
}

export const globalsOf = (cmd: Command): Globals => cmd.optsWithGlobals() as Globals;

export interface Session {
  api: FloeApi;
  login: StoredLogin | null;
  baseUrl: Resolved<string>;
  key: Resolved<string>;
  /** GET /v1/orgs, asked once per command however many parts of it need the memberships. */
  orgs: () => Promise<Organisation[]>;
  /** The organisation to act in: --org, else the profile's, else the only one the key belongs to. */
  orgId: () => Promise<string>;
}

export async function openSession(io: Io, g: Globals, opts: ApiOptions = {}): Promise<Session> {
  const login = await loadLogin(io, g.profile);
  const key = requireApiKey(io.env, login);
  const baseUrl = requireBaseUrl(g.baseUrl, io.env, login);
  const api = new FloeApi(baseUrl.value, key.value, opts);
  let asked: Promise<Organisation[]> | null = null;
  const orgs = () => (asked ??= api.orgs());
  const orgId = async () => {
    if (g.org) return g.org;
    if (login?.org_id && key.source === 'login') return login.org_id;
    const memberships = await orgs();
    if (memberships.length === 1) return memberships[0].org_id;
    if (memberships.length === 0) throw new CliError('this key belongs to no organisation', undefined, 'Create one on the console, or accept an invitation.');
    throw usageError(`this key belongs to ${memberships.length} organisations; name one with --org <handle>`, `Yours: ${memberships.map((o) => o.handle).join(', ')}`);
  };
  return { api, login, baseUrl, key, orgs, orgId };
}
