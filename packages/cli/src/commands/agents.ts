// `floe agents list|show|create|edit|revoke`: the organisation's agents, the
// non-person members that act through API keys (GET, POST
// /v1/orgs/{org_id}/agents; GET, PATCH, DELETE …/agents/{agent_id}, where an
// agent is named by id or by its name among the live ones). An agent reaches
// the catalogs of its grants (`--grant lake:write`, catalog by name or id, as
// Floe resolves them) or, with the admin role, every catalog at write.
// `edit --grant` replaces the whole list. A new agent's key is printed once,
// on stdout alone, so `floe agents create ci > ci.key` keeps it out of the
// terminal's scrollback. --json prints Floe's answers as they came.
import { Option, type Command } from 'commander';
import { ok, type Answer, type BodyOf } from '../api-client.js';
import { isLevel, splitCatalogLevel } from '../catalog-spec.js';
import { act, collect, examples } from '../command.js';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';

type Agent = Answer<'/v1/orgs/{org_id}/agents', 'get'>['agents'][number];
type HeldGrant = Agent['grants'][number];
export type Grant = NonNullable<BodyOf<'/v1/orgs/{org_id}/agents', 'post'>['grants']>[number];
type Role = 'member' | 'admin';
const ROLES: Role[] = ['member', 'admin'];

/**
 * `--grant <catalog>:<read|write>`. The level is required: what an agent
 * may write should be said, not defaulted. Catalog names never hold `:`
 * (catalog-spec.ts), so the last one splits; Floe takes a name or an id.
 */
export function parseGrant(spec: string): Grant {
  const { catalog, level = '' } = splitCatalogLevel(spec);
  if (!catalog || !isLevel(level)) throw usageError(`--grant ${JSON.stringify(spec)}: write it as <catalog>:read or <catalog>:write`);
  return { warehouse_id: catalog, level };
}

/** `lake:write, sales:read`; past `max` the rest is counted. */
export function grantsText(grants: HeldGrant[], max = Infinity): string {
  if (grants.length === 0) return 'none';
  const shown = grants.slice(0, max).map((g) => `${g.name}:${g.level}`).join(', ');
  return grants.length > max ? `${shown} +${grants.length - max} more` : shown;
}

/** What an edit changed, as one sentence's parts: `role member → admin`, … */
export function changesText(edited: Pick<Answer<'/v1/orgs/{org_id}/agents/{agent_id}', 'patch'>, 'name' | 'role' | 'grants' | 'previous' | 'updated'>): string {
  const { previous: was } = edited;
  const parts = edited.updated.map((field) => {
    if (field === 'name') return `name ${was.name} → ${edited.name}`;
    if (field === 'role') return `role ${was.role} → ${edited.role}`;
    if (field === 'grants') return `grants ${grantsText(was.grants)} → ${grantsText(edited.grants)}`;
    return 'now confined to its grants';
  });
  return parts.length ? parts.join('; ') : 'nothing changed';
}

const createdByText = (a: Pick<Agent, 'created_by'>) => a.created_by?.display ?? a.created_by?.principal_id ?? '-';

export function registerAgents(program: Command, io: Io): void {
  const agents = program.command('agents').description('the organisation\'s agents: API-key identities with a role and catalog grants');

  examples(agents.command('list', { isDefault: true })
    .description('list the agents with their role, grants and last use')
    .option('--include-revoked', 'list revoked agents too')
    .action(act(io, async (c, opts: { includeRevoked?: boolean }) => {
      const s = await c.session();
      const answer = await ok(s.api.http.GET('/v1/orgs/{org_id}/agents', {
        params: { path: { org_id: await s.orgId() }, query: opts.includeRevoked ? { include_revoked: 'true' } : {} },
      }));
      c.out.result(answer, (a) => {
        if (a.agents.length === 0) return c.out.note('No agents; make one with `floe agents create <name> --grant <catalog>:read`.');
        c.out.table(['NAME', 'ROLE', 'GRANTS', 'CREATED BY', 'LAST USED', ...(opts.includeRevoked ? ['STATUS'] : [])], a.agents.map((g) => [
          g.name, g.role, grantsText(g.grants, 3), createdByText(g), g.last_key_use?.at ?? 'never', ...(opts.includeRevoked ? [g.status] : []),
        ]));
      });
    })), ['floe agents', 'floe agents list --include-revoked --json | jq -r ".agents[].name"']);

  examples(agents.command('show')
    .description('show one agent: role, grants, keys (never their secrets)')
    .argument('<agent>', 'the agent\'s name or id')
    .action(act(io, async (c, agent: string) => {
      const s = await c.session();
      const shown = await ok(s.api.http.GET('/v1/orgs/{org_id}/agents/{agent_id}', { params: { path: { org_id: await s.orgId(), agent_id: agent } } }));
      c.out.result(shown, (a) => c.out.fields([
        ['name', a.name], ['agent id', a.agent_id], ['role', a.role], ['status', a.status], ['grants', grantsText(a.grants)],
        ['created', `${a.created_at} by ${createdByText(a)}`], ['last used', a.last_key_use ? `${a.last_key_use.at} (key ${a.last_key_use.key_id})` : 'never'],
        ['keys', a.keys.map((k) => `${k.key_id}${k.revoked_at ? ' (revoked)' : ''}`).join(', ') || 'none'],
      ]));
    })), ['floe agents show ci-runner', 'floe agents show ci-runner --json | jq .grants']);

  examples(agents.command('create')
    .description('make an agent and its API key; the key is printed once')
    .argument('<name>', 'what the agent is for')
    .addOption(new Option('--role <role>', 'admin reaches every catalog and manages members and agents').choices(ROLES).default('member'))
    .option('--grant <catalog:level>', 'a catalog (name or id) and the level on it, read or write; repeat for more', collect)
    .action(act(io, async (c, name: string, opts: { role: Role; grant?: string[] }) => {
      const grants = (opts.grant ?? []).map(parseGrant);
      const s = await c.session();
      const made = await ok(s.api.http.POST('/v1/orgs/{org_id}/agents', { params: { path: { org_id: await s.orgId() } }, body: { name, role: opts.role, grants } }));
      c.out.result(made, (a) => {
        c.out.line(a.api_key);
        c.out.note(`Agent ${a.name} made (role ${a.role}; grants ${grantsText(a.grants)}); the key above is shown once and Floe keeps only a hash.`);
      });
    })), ['floe agents create ci-runner --grant lake:write > ci.key', 'floe agents create dashboards --grant lake:read --grant sales:read']);

  examples(agents.command('edit')
    .description('rename an agent, change its role, or replace its grants')
    .argument('<agent>', 'the agent\'s name or id')
    .option('--name <name>', 'its new name')
    .addOption(new Option('--role <role>', 'its new role').choices(ROLES))
    .option('--grant <catalog:level>', 'the grants it holds from now on (replacing all); repeat for more', collect)
    .addOption(new Option('--clear-grants', 'take every grant away (it then reaches no catalog unless an admin)').conflicts('grant'))
    .action(act(io, async (c, agent: string, opts: { name?: string; role?: Role; grant?: string[]; clearGrants?: boolean }) => {
      const grants = opts.clearGrants ? [] : opts.grant?.map(parseGrant);
      if (opts.name === undefined && opts.role === undefined && grants === undefined) throw usageError('nothing to change', 'Pass --name, --role, --grant or --clear-grants.');
      const s = await c.session();
      const edited = await ok(s.api.http.PATCH('/v1/orgs/{org_id}/agents/{agent_id}', {
        params: { path: { org_id: await s.orgId(), agent_id: agent } }, body: { name: opts.name, role: opts.role, grants },
      }));
      c.out.result(edited, (a) => c.out.note(`Agent ${a.name}: ${changesText(a)}.`));
    })), ['floe agents edit ci-runner --grant lake:read --grant sales:write', 'floe agents edit ci-runner --name ci --role admin']);

  examples(agents.command('revoke')
    .description('revoke an agent: every key of it is refused at once and its grants go')
    .argument('<agent>', 'the agent\'s name or id')
    .action(act(io, async (c, agent: string) => {
      const s = await c.session();
      const org = await s.orgId();
      // Read first: the question names what goes, and an unknown name fails before it is asked.
      const shown = await ok(s.api.http.GET('/v1/orgs/{org_id}/agents/{agent_id}', { params: { path: { org_id: org, agent_id: agent } } }));
      if (shown.status === 'active') await c.confirm(`Revoke agent ${shown.name} (${shown.role}; grants ${grantsText(shown.grants, 3)}): every key of it stops working at once`);
      const revoked = await ok(s.api.http.DELETE('/v1/orgs/{org_id}/agents/{agent_id}', { params: { path: { org_id: org, agent_id: shown.agent_id } } }));
      c.out.result(revoked, (a) => c.out.note(a.already_revoked
        ? `Agent ${a.name} was already revoked.`
        : `Revoked agent ${a.name}: ${a.keys_revoked} key${a.keys_revoked === 1 ? '' : 's'} refused from now on, ${a.grants_removed} grant${a.grants_removed === 1 ? '' : 's'} removed.`));
    })), ['floe agents revoke ci-runner', 'floe agents revoke 3f2a… --yes']);
}
