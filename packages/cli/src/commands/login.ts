// The two ways `floe auth login` gets a key. Device authorisation (spec:
// POST /v1/auth/device, then POST /v1/auth/device/token): shows the code and
// the link, opens a browser only where one can open, waits for a person to
// approve, and answers the new agent's login; `--role admin` asks for an
// admin agent (an admin approver gives one; a member's approval caps it to
// member, which is said). `--with-key` (login-with-key.ts) takes a key the
// person already has. Denied or expired: a clear sentence, exit 1.
import { hostname } from 'node:os';
import { FloeApi, type DeviceStart, type DeviceToken, type Level } from '../api-client.js';
import { openBrowser } from '../browser.js';
import { parseCatalogSpec } from '../catalog-spec.js';
import { waitForApproval } from '../device-poll.js';
import type { Io } from '../io.js';
import { profileNameFor, type StoredLogin } from '../profiles.js';
import { startProgress } from '../progress.js';

export interface DeviceLoginOpts {
  name?: string;
  catalog?: string[];
  level?: Level;
  role?: 'member' | 'admin';
  open: boolean;
  /** The profile's name when the person gives one. */
  profile?: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const clock = (s: number) => `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;

export function storedFrom(baseUrl: string, start: DeviceStart, t: DeviceToken, host: string, orgHandle: string | null, profile?: string): StoredLogin {
  return {
    name: profile ?? profileNameFor(baseUrl, orgHandle, t.key_id),
    via: 'device',
    base_url: baseUrl,
    api_key: t.api_key,
    key_id: t.key_id,
    principal_id: t.principal_id,
    agent_name: t.connection?.name ?? start.client_name ?? host,
    org_id: t.connection?.org_id ?? null,
    org_handle: orgHandle,
    label: t.label,
    role: t.connection?.role,
    warehouses: (t.connection?.warehouses ?? []).map((w) => ({ warehouse_id: w.warehouse_id, name: w.name, level: w.level })),
    logged_in_at: new Date().toISOString(),
  };
}

/** Asks for a device code, shows it, waits for a person's decision, and answers the login to store. */
export async function deviceLogin(io: Io, base: string, opts: DeviceLoginOpts): Promise<StoredLogin> {
  // ask
  const warehouses = (opts.catalog ?? []).map((spec) => parseCatalogSpec(spec, opts.level));
  const host = hostname();
  const api = new FloeApi(base);
  const start = await api.startDevice({
    client: 'cli', hostname: host,
    ...(opts.name ? { client_name: opts.name } : {}),
    ...(opts.level ? { requested_level: opts.level } : {}),
    ...(opts.role ? { requested_role: opts.role } : {}),
    ...(warehouses.length ? { warehouses } : {}),
  });

  // show the code: on stderr, so a script capturing stdout gets only the result
  io.err(`To log in, open this link and approve the code ${start.user_code}${opts.role === 'admin' ? ' (as an admin agent)' : ''}:`);
  io.err(`  ${start.verification_uri_complete}`);
  io.err(`(or go to ${start.verification_uri} and enter ${start.user_code})`);
  if (opts.open && openBrowser(start.verification_uri_complete)) io.err('Opened your browser.');

  // wait
  const progress = startProgress(io, `Waiting for approval of ${start.user_code}…`);
  let token: DeviceToken;
  try {
    token = await waitForApproval(start, {
      poll: () => api.pollDevice(start.device_code), sleep, now: Date.now,
      onWait: (left) => progress.update(`Waiting for approval of ${start.user_code} (expires in ${clock(left)})…`),
    });
    progress.succeed('Approved.');
  } catch (err) {
    progress.fail('Not logged in.');
    throw err;
  }
  if (opts.role === 'admin' && token.connection?.role !== 'admin') {
    io.err(`note: you asked for an admin agent, but the person who approved is not an admin of the organisation, so this is a ${token.connection?.role ?? 'member'} agent.`);
  }
  const orgs = await new FloeApi(base, token.api_key).orgs();
  const handle = orgs.find((o) => o.org_id === token.connection?.org_id)?.handle ?? orgs[0]?.handle ?? null;
  return storedFrom(base, start, token, host, handle, opts.profile);
}
