// `floe whoami`: who this machine is logged in as — the stored login (never
// its secret) and what Floe says of the key now (GET /v1/orgs: a token sees
// its owning organisation and its role). No key at all is "not logged in".
import type { Command } from 'commander';
import type { Organisation } from '../api-client.js';
import { loginPath, type StoredLogin } from '../config-store.js';
import { keyIdOf } from '../context.js';
import type { Io } from '../io.js';
import { openSession } from '../session.js';

const catalogsOf = (login: StoredLogin) =>
  (login.warehouses ?? []).map((w) => `${w.name ?? w.warehouse_id} (${w.level ?? '?'})`).join(', ') || 'none';

export function describeWhoami(baseUrl: string, keySource: string, key: string, login: StoredLogin | null, orgs: Organisation[], path: string): string[] {
  const lines: string[] = [];
  if (login) {
    lines.push(`Logged in as agent "${login.agent_name}" (principal ${login.principal_id}) since ${login.logged_in_at}`);
    lines.push(`  key ${login.key_id}, label "${login.label}", stored in ${path}`);
    lines.push(`  catalogs granted at login: ${catalogsOf(login)}`);
  }
  if (keySource === 'env') lines.push(`Using the key in FLOE_API_KEY (key ${keyIdOf(key) ?? 'not an API key'})${login ? '; it overrides the stored login' : ''}`);
  lines.push(`Floe at ${baseUrl} says:`);
  if (orgs.length === 0) lines.push('  no organisation');
  for (const o of orgs) lines.push(`  organisation ${o.name} (${o.handle}, ${o.org_id}), role ${o.role}`);
  return lines;
}

export function registerWhoami(program: Command, io: Io): void {
  program.command('whoami')
    .description('show the stored login and what Floe says about the key now')
    .option('--json', 'print as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { api, login, baseUrl, key } = openSession(io, cmd.optsWithGlobals().baseUrl);
      const orgs = await api.orgs();
      if (opts.json) {
        const stored = login ? { ...login, api_key: undefined } : null;
        return io.out(JSON.stringify({ base_url: baseUrl.value, key_source: key.source, key_id: keyIdOf(key.value), stored_login: stored, organizations: orgs }, null, 2));
      }
      for (const line of describeWhoami(baseUrl.value, key.source, key.value, login, orgs, loginPath(io.configDir))) io.out(line);
    });
}
