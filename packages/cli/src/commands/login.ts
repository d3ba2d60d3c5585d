// `floe login`: device authorisation (spec: POST /v1/auth/device, then
// POST /v1/auth/device/token). Shows the code and the link, opens a browser
// only where one can open, waits for a person to approve, then stores the
// new agent's key (config-store.ts) and says who this machine now is and
// which catalogs it holds. Denied or expired: a clear sentence, exit 1.
// `--with-key` stores a key the person already has instead (login-with-key.ts).
import { hostname } from 'node:os';
import { Option, type Command } from 'commander';
import { FloeApi, type DeviceStart, type DeviceToken, type Level } from '../api-client.js';
import { openBrowser } from '../browser.js';
import { parseCatalogSpec } from '../catalog-spec.js';
import { readLogin, writeLogin, type StoredLogin } from '../config-store.js';
import { requireBaseUrl } from '../context.js';
import { waitForApproval } from '../device-poll.js';
import { keyLogin } from './login-with-key.js';
import type { Io } from '../io.js';
import { startProgress } from '../progress.js';

interface LoginOpts {
  name?: string;
  catalog?: string[];
  level?: Level;
  open: boolean;
  withKey?: boolean;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const clock = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

export function storedFrom(baseUrl: string, start: DeviceStart, t: DeviceToken, host: string): StoredLogin {
  return {
    via: 'device',
    base_url: baseUrl,
    api_key: t.api_key,
    key_id: t.key_id,
    principal_id: t.principal_id,
    agent_name: t.connection?.name ?? start.client_name ?? host,
    org_id: t.connection?.org_id ?? null,
    label: t.label,
    role: t.connection?.role,
    warehouses: (t.connection?.warehouses ?? []).map((w) => ({ warehouse_id: w.warehouse_id, name: w.name, level: w.level })),
    logged_in_at: new Date().toISOString(),
  };
}

export function registerLogin(program: Command, io: Io): void {
  program.command('login')
    .description('log this machine in by approving it in a browser (device authorisation)')
    .option('--name <client_name>', 'name of the agent the approval creates (default: this host name)')
    .option('--catalog <name|id[:read|write]>', 'catalog to ask for, with its level; repeat for more (default: the organisation\'s default catalog)', collect)
    .addOption(new Option('--level <level>', 'level to ask for where --catalog names none (default: write)').choices(['read', 'write']))
    .option('--no-open', 'do not try to open a browser; only print the link')
    .addOption(new Option('--with-key', 'store an API key read from stdin instead (logout leaves such a key live)').conflicts(['name', 'catalog', 'level']))
    .action(async (opts: LoginOpts, cmd: Command) => {
      const previous = readableLogin(io);
      const base = requireBaseUrl(cmd.optsWithGlobals().baseUrl, io.env, previous).value;
      const login = opts.withKey ? await keyLogin(base, await io.readInput()) : await deviceLogin(io, base, opts);
      const path = writeLogin(io.configDir, login);
      io.out(`Logged in to ${base} as ${login.via === 'device' ? 'agent' : 'key'} "${login.agent_name}"${login.org_id ? ` of organisation ${login.org_id}` : ''}${login.role ? ` (role ${login.role})` : ''}.`);
      const granted = login.warehouses ?? [];
      io.out(granted.length ? `Catalogs granted: ${granted.map((w) => `${w.name ?? w.warehouse_id} (${w.level})`).join(', ')}` : 'No catalogs granted yet.');
      io.out(`Key ${login.key_id} stored in ${path}.`);
      if (previous?.via === 'device' && previous.key_id !== login.key_id) {
        io.err(`The previous login's key ${previous.key_id} was replaced here but not revoked; revoke its agent on the account page if it is no longer used.`);
      }
    });
}

/** The stored login, if any; an unreadable file is only reported, since this login replaces it. */
function readableLogin(io: Io): StoredLogin | null {
  try {
    return readLogin(io.configDir);
  } catch (err) {
    io.err(`note: ${(err as Error).message}; it will be replaced.`);
    return null;
  }
}

/** Asks for a device code, shows it, waits for a person's decision, and answers the login to store. */
async function deviceLogin(io: Io, base: string, opts: LoginOpts): Promise<StoredLogin> {
  // ask
  const warehouses = (opts.catalog ?? []).map((spec) => parseCatalogSpec(spec, opts.level));
  const host = hostname();
  const api = new FloeApi(base);
  const start = await api.startDevice({
    client: 'cli', hostname: host,
    ...(opts.name ? { client_name: opts.name } : {}),
    ...(opts.level ? { requested_level: opts.level } : {}),
    ...(warehouses.length ? { warehouses } : {}),
  });

  // show the code
  io.out(`To log in, open this link and approve the code ${start.user_code}:`);
  io.out(`  ${start.verification_uri_complete}`);
  io.out(`(or go to ${start.verification_uri} and enter ${start.user_code})`);
  if (opts.open && openBrowser(start.verification_uri_complete)) io.err('Opened your browser.');

  // wait
  const progress = startProgress(`Waiting for approval of ${start.user_code}…`);
  try {
    const token = await waitForApproval(start, {
      poll: () => api.pollDevice(start.device_code), sleep, now: Date.now,
      onWait: (left) => progress.update(`Waiting for approval of ${start.user_code} (expires in ${clock(left)})…`),
    });
    progress.succeed('Approved.');
    return storedFrom(base, start, token, host);
  } catch (err) {
    progress.fail('Not logged in.');
    throw err;
  }
}
