// `floe auth login|logout|status|token|switch`: the logins this machine
// holds, one profile per Floe and organisation (profiles.ts). `floe login`,
// `floe logout` and `floe whoami` are the same commands at the top level.
//
// login   device authorisation (login.ts) or --with-key; the new profile
//         becomes current. A device login that replaces a profile's earlier
//         device login revokes the earlier agent (it would linger otherwise).
// logout  revokes the agent the device login made (DELETE
//         /v1/orgs/{org_id}/agents/{agent_id} with its own key: every key and
//         grant goes), and forgets the profile. A 401 means it is already
//         dead. When Floe cannot be reached the profile is kept, so the agent
//         can still be revoked later; --force forgets it anyway. A --with-key
//         login was the person's key before, so it is only forgotten.
// status  every profile, the current one marked, and what Floe says of it now.
// token   the current key on stdout, for `curl -H "Authorization: Bearer $(floe auth token)"`.
// switch  makes another profile current.
//
// --json shapes: login `{profile, base_url, via, key_id, agent_id, agent_name, org_id, org_handle, role, warehouses, secret_store}`;
// logout `{profile, revoked: 'agent'|'key'|'already'|'kept'|'none', forgotten}`;
// status `{current, profiles[{name, current, base_url, via, org_handle, org_id, agent_name, role, key_id, secret_store}], live}`;
// token `{profile, key_id, api_key, source}`.
import { Option, type Command } from 'commander';
import { FloeApi, type Level } from '../api-client.js';
import { act, collect, examples, type Ctx } from '../command.js';
import { keyIdOf, requireApiKey, requireBaseUrl } from '../context.js';
import { ApiError, Hinted } from '../errors.js';
import type { Io } from '../io.js';
import { configPath, forgetLogin, loadConfig, loadLogin, saveLogin, switchProfile } from '../logins.js';
import type { StoredLogin } from '../profiles.js';
import { deviceLogin } from './login.js';
import { keyLogin } from './login-with-key.js';

interface LoginOpts {
  name?: string;
  catalog?: string[];
  level?: Level;
  role?: 'member' | 'admin';
  open: boolean;
  withKey?: boolean;
}

function loginCommand(cmd: Command, io: Io): Command {
  return examples(cmd
    .description('log this machine in by approving it in a browser (device authorisation); the profile becomes current')
    .option('--name <client_name>', 'name of the agent the approval creates (default: this host name)')
    .option('--catalog <name|id[:read|write]>', 'catalog to ask for, with its level; repeat for more (default: the organisation\'s default catalog)', collect)
    .addOption(new Option('--level <level>', 'level to ask for where --catalog names none (default: write)').choices(['read', 'write']))
    .addOption(new Option('--role <role>', 'the agent\'s role: admin manages catalogs, members and agents (an admin must approve)').choices(['member', 'admin']))
    .option('--no-open', 'do not try to open a browser; only print the link')
    .addOption(new Option('--with-key', 'store an API key read from stdin instead (logout leaves such a key live)').conflicts(['name', 'catalog', 'level', 'role']))
    .action(act(io, async (c, opts: LoginOpts) => {
      const previous = await readable(c, io);
      const base = requireBaseUrl(c.g.baseUrl, io.env, previous).value;
      const login = opts.withKey ? await keyLogin(base, await io.readInput(), c.g.profile) : await deviceLogin(io, base, { ...opts, profile: c.g.profile });
      // Read before the new login overwrites it: the replaced agent revokes itself with its own key.
      const replaced = await loadLogin(io, login.name).catch(() => null);
      const { where } = await saveLogin(io, login);
      if (replaced?.via === 'device' && replaced.key_id !== login.key_id) await retire(c, replaced);
      c.out.result(loginJson(login, where), () => {
        c.out.line(`Logged in to ${base} as ${login.via === 'device' ? 'agent' : 'key'} "${login.agent_name}"${login.org_handle ? ` of ${login.org_handle}` : ''}${login.role ? ` (role ${login.role})` : ''}; profile ${login.name} is current.`);
        const granted = login.warehouses ?? [];
        c.out.line(granted.length ? `Catalogs granted: ${granted.map((w) => `${w.name ?? w.warehouse_id} (${w.level})`).join(', ')}` : 'No catalogs granted yet.');
        c.out.note(`Key ${login.key_id} kept in ${where}.`);
      });
    })), [
    'floe auth login',
    'floe auth login --role admin --name laptop',
    'floe auth login --catalog lake:read --catalog staging',
    'floe auth login --with-key < key.txt',
    'floe --base-url https://floe.example.com --profile work auth login',
  ]);
}

const loginJson = (l: StoredLogin, where: string) => ({
  profile: l.name, base_url: l.base_url, via: l.via, key_id: l.key_id, agent_id: l.principal_id, agent_name: l.agent_name,
  org_id: l.org_id, org_handle: l.org_handle ?? null, role: l.role ?? null, warehouses: l.warehouses ?? [], secret_store: where,
});

/** The chosen profile, if any; an unreadable one is only reported, since this login replaces it. */
async function readable(c: Ctx, io: Io): Promise<StoredLogin | null> {
  try {
    return await loadLogin(io, c.g.profile);
  } catch (err) {
    c.out.note(`note: ${(err as Error).message}; it will be replaced.`);
    return null;
  }
}

/** The replaced device login's agent is revoked as logout revokes it (best effort: it is said when it fails). */
async function retire(c: Ctx, old: StoredLogin): Promise<void> {
  try {
    await revokeLogin(old, old.base_url);
    c.out.note(`Revoked the agent "${old.agent_name}" of the login this one replaces.`);
  } catch {
    c.out.note(`The agent "${old.agent_name}" of the login this one replaces could not be revoked; revoke it with \`floe agents revoke ${old.agent_name}\`.`);
  }
}

type Revoked = 'agent' | 'key' | 'already' | 'kept' | 'none';

/** Revokes what a device login made: the agent (its keys and grants go with it); the key alone where the agent route refuses. */
async function revokeLogin(login: StoredLogin, base: string): Promise<Revoked> {
  const api = new FloeApi(base, login.api_key);
  try {
    if (login.org_id) {
      const r = await api.http.DELETE('/v1/orgs/{org_id}/agents/{agent_id}', { params: { path: { org_id: login.org_id, agent_id: login.principal_id } } });
      if (r.response.ok) return r.data?.already_revoked ? 'already' : 'agent';
      if (r.response.status === 401) return 'already';
    }
    const k = await api.revokeKey(login.key_id);
    return k.already_revoked ? 'already' : 'key';
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return 'already';
    throw err;
  }
}

function logoutCommand(cmd: Command, io: Io): Command {
  return examples(cmd
    .description('revoke the agent this login made and forget the profile (FLOE_API_KEY is left alone)')
    .option('--force', 'forget the profile even when its agent cannot be revoked')
    .option('--all', 'log out of every profile')
    .action(act(io, async (c, opts: { force?: boolean; all?: boolean }) => {
      const config = await loadConfig(io);
      const names = opts.all ? Object.keys(config.profiles) : [c.g.profile ?? io.env.FLOE_PROFILE ?? config.current].filter((x): x is string => Boolean(x));
      if (names.length === 0 || names.every((n) => !config.profiles[n])) {
        c.out.result({ profile: null, revoked: 'none' as Revoked, forgotten: false }, () => c.out.note(`Not logged in: no profile in ${configPath(io.configDir)}.`));
        return;
      }
      for (const name of names) {
        const login = await loadLogin(io, name).catch(() => null);
        const profile = config.profiles[name];
        let revoked: Revoked = 'kept';
        if (login && profile.via === 'device') {
          const base = requireBaseUrl(c.g.baseUrl, io.env, login).value;
          try {
            revoked = await revokeLogin(login, base);
          } catch (err) {
            if (!opts.force) throw new Hinted(err, `The agent could not be revoked, so profile ${name} is kept: run \`floe auth logout\` again, or with --force to forget it anyway.`);
            c.out.note(`warning: agent "${profile.agent_name}" could not be revoked (${(err as Error).message}); it stays live until it is revoked with \`floe agents revoke\` or on the console.`);
          }
        }
        await forgetLogin(io, name);
        c.out.result({ profile: name, revoked, forgotten: true }, () => {
          const said: Record<Revoked, string> = {
            agent: `Revoked agent "${profile.agent_name}" (its keys and grants) at ${profile.base_url}.`,
            key: `Revoked key ${profile.key_id} at ${profile.base_url}.`,
            already: `Agent "${profile.agent_name}" no longer worked at ${profile.base_url}; nothing to revoke.`,
            kept: profile.via === 'key' ? `Key ${profile.key_id} was yours before \`floe auth login --with-key\` stored it, so it stays live.` : `Agent "${profile.agent_name}" was not revoked.`,
            none: '',
          };
          c.out.line(said[revoked]);
          c.out.line(`Forgot profile ${name}.`);
        });
      }
      if (io.env.FLOE_API_KEY) c.out.note('Note: FLOE_API_KEY is still set in this shell; logout does not touch it.');
    })), ['floe auth logout', 'floe auth logout --profile acme@floe.example.com', 'floe auth logout --all']);
}

function statusCommand(cmd: Command, io: Io): Command {
  return examples(cmd
    .description('show the profiles here, the current one, and what Floe says of its key now')
    .option('--offline', 'do not ask Floe; only what is stored')
    .action(act(io, async (c, opts: { offline?: boolean }) => {
      const config = await loadConfig(io);
      const current = c.g.profile ?? io.env.FLOE_PROFILE ?? config.current;
      const profiles = Object.values(config.profiles).map((p) => ({
        name: p.name, current: p.name === current, base_url: p.base_url, via: p.via, org_handle: p.org_handle ?? null, org_id: p.org_id,
        agent_name: p.agent_name, agent_id: p.principal_id, role: p.role ?? null, key_id: p.key_id, secret_store: p.secret_store ?? 'file', logged_in_at: p.logged_in_at,
      }));
      let live: { base_url: string; key_source: string; key_id: string | null; organizations: unknown[] } | null = null;
      if (!opts.offline && (current || io.env.FLOE_API_KEY)) {
        const login = current ? await loadLogin(io, current) : null;
        const key = requireApiKey(io.env, login);
        const base = requireBaseUrl(c.g.baseUrl, io.env, login).value;
        live = { base_url: base, key_source: key.source, key_id: keyIdOf(key.value), organizations: await new FloeApi(base, key.value).orgs() };
      }
      if (!live && profiles.length === 0) requireApiKey(io.env, null);
      c.out.result({ current, profiles, live }, () => {
        for (const p of profiles) {
          c.out.line(`${p.current ? '*' : ' '} ${p.name}  ${p.via === 'device' ? 'agent' : 'key'} "${p.agent_name}"${p.role ? ` (${p.role})` : ''}  key ${p.key_id} in ${p.secret_store === 'keychain' ? 'the OS keychain' : 'credentials.json'}`);
        }
        if (live) {
          if (live.key_source === 'env') c.out.line(`Using the key in FLOE_API_KEY (key ${live.key_id ?? 'not an API key'})${current ? '; it overrides the profile' : ''}`);
          c.out.line(`Floe at ${live.base_url} says:`);
          const orgs = live.organizations as Array<{ name: string; handle: string; org_id: string; role: string }>;
          if (orgs.length === 0) c.out.line('  no organisation');
          for (const o of orgs) c.out.line(`  organisation ${o.name} (${o.handle}, ${o.org_id}), role ${o.role}`);
        }
      });
    })), ['floe auth status', 'floe whoami', 'floe auth status --json | jq -r .current']);
}

export function registerAuth(program: Command, io: Io): void {
  const auth = program.command('auth').description('log in and out, and choose between logins (profiles)');
  loginCommand(auth.command('login'), io);
  logoutCommand(auth.command('logout'), io);
  statusCommand(auth.command('status'), io);

  examples(auth.command('token')
    .description('print the key floe uses (the profile\'s, or FLOE_API_KEY) for other tools')
    .action(act(io, async (c) => {
      const login = await loadLogin(io, c.g.profile);
      const key = requireApiKey(io.env, login);
      c.out.result({ profile: key.source === 'login' ? login!.name : null, key_id: keyIdOf(key.value), api_key: key.value, source: key.source }, (t) => c.out.line(t.api_key));
    })), ['curl -H "Authorization: Bearer $(floe auth token)" https://floe.example.com/v1/warehouses']);

  examples(auth.command('switch')
    .description('make another profile the current one')
    .argument('<profile>', 'a profile name from `floe auth status`')
    .action(act(io, async (c, name: string) => {
      const p = await switchProfile(io, name);
      c.out.result({ current: name, base_url: p.base_url, org_handle: p.org_handle ?? null }, () => c.out.line(`Profile ${name} (${p.base_url}) is now current.`));
    })), ['floe auth switch acme@floe.example.com']);

  // The short forms people type first.
  loginCommand(program.command('login'), io);
  logoutCommand(program.command('logout'), io);
  statusCommand(program.command('whoami'), io);
}
