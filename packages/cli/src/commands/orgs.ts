// `floe orgs`, `floe members` and `floe invite`: the organisations this key
// belongs to, and who is in the one it acts in (--org, else the profile's).
//
// orgs list                     GET /v1/orgs
// orgs show [org]               GET /v1/orgs/{org_id}/policy: who may make agents, log devices in, …
// members list                  GET /v1/orgs/{org_id}/members (people and agents)
// members set-role <m> <role>   PATCH /v1/orgs/{org_id}/members/{member_id}
// members remove <m>            DELETE /v1/orgs/{org_id}/members/{member_id} (your own id: you leave)
// members invitations           GET /v1/orgs/{org_id}/invitations
// invite <email>                POST /v1/orgs/{org_id}/invitations
//
// Routes take a member's principal id; the members list answers ids and
// addresses, so a member may be named by either and is looked up there first.
// Pending invitations are listed under `members`, not as `invite list`:
// commander cannot give one command both an argument and subcommands, and
// `floe invite list` would read as inviting "list". --json prints Floe's
// answers as they came.
import { Argument, Option, type Command } from 'commander';
import { ok, type Answer } from '../api-client.js';
import { act, examples } from '../command.js';
import { CliError, EXIT_FAILED } from '../errors.js';
import type { Io } from '../io.js';

export type Member = Answer<'/v1/orgs/{org_id}/members', 'get'>['members'][number];
type Policy = Answer<'/v1/orgs/{org_id}/policy', 'get'>;

const ROLES = ['member', 'admin'] as const;

/** The member a command names: by principal id, else by address (case aside), else an agent by its name (agents have no address). */
export function findMember(members: Member[], which: string): Member {
  const address = which.toLowerCase();
  const found = members.find((m) => m.member_id === which)
    ?? members.find((m) => m.email?.toLowerCase() === address)
    ?? members.find((m) => m.kind === 'agent' && m.display_name === which);
  if (!found) throw new CliError(`no member ${JSON.stringify(which)} in this organisation`, EXIT_FAILED, 'see `floe members list` for their ids, addresses and agents\' names', 'member_not_found');
  return found;
}

/** How a member reads in a sentence or a table: address, else name, else id. */
export const memberLabel = (m: Pick<Member, 'email' | 'display_name' | 'member_id'>): string => m.email ?? m.display_name ?? m.member_id;

/** The policy as `key: value` lines, each field marked where it differs from the default. */
export function policyFields(p: Policy): Array<[string, string]> {
  const defaults: Record<string, string> = p.defaults;
  return [
    ['organisation', `${p.handle} (${p.org_id})`],
    ['your role', p.role],
    ...Object.entries(p.policy).map(([k, v]): [string, string] => [k, v === defaults[k] ? v : `${v} (default ${defaults[k]})`]),
    ['changed', p.updated_at ? `${p.updated_at} by ${p.updated_by ?? 'unknown'}` : 'never (the defaults)'],
    ['domain join', p.domain_join ? 'on' : 'off'],
    ['mail domains', p.domains.map((d) => d.domain).join(', ') || 'none claimed'],
  ];
}

export function registerOrgs(program: Command, io: Io): void {
  registerOrgsGroup(program, io);
  registerMembers(program, io);
  registerInvite(program, io);
}

function registerOrgsGroup(program: Command, io: Io): void {
  const orgs = program.command('orgs').description('the organisations you belong to');

  examples(orgs.command('list', { isDefault: true })
    .description('list your organisations with your role in each')
    .action(act(io, async (c) => {
      const { api } = await c.session();
      const answer = await ok(api.http.GET('/v1/orgs'));
      c.out.result(answer, (a) => {
        if (a.organizations.length === 0) return c.out.note('No organisations: create one on the console, or accept an invitation.');
        c.out.table(['HANDLE', 'NAME', 'ROLE', 'ORG ID'], a.organizations.map((o) => [o.handle, o.name, o.role, o.org_id]));
      });
    })), ['floe orgs', 'floe orgs list --json | jq -r ".organizations[].handle"']);

  examples(orgs.command('show')
    .description('show an organisation\'s policy: who may make agents, log devices in, allow OAuth apps, publish catalogs')
    .argument('[org]', 'the organisation\'s id or handle (default: the one you act in)')
    .action(act(io, async (c, org: string | undefined) => {
      const s = await c.session();
      const policy = await ok(s.api.http.GET('/v1/orgs/{org_id}/policy', { params: { path: { org_id: org ?? await s.orgId() } } }));
      c.out.result(policy, (p) => c.out.fields(policyFields(p)));
    })), ['floe orgs show', 'floe orgs show acme --json']);
}

function registerMembers(program: Command, io: Io): void {
  const members = program.command('members').description('the people and agents of the organisation you act in (--org)');

  examples(members.command('list', { isDefault: true })
    .description('list the members with their roles')
    .action(act(io, async (c) => {
      const s = await c.session();
      const answer = await ok(s.api.http.GET('/v1/orgs/{org_id}/members', { params: { path: { org_id: await s.orgId() } } }));
      c.out.result(answer, (a) => {
        c.out.table(['MEMBER ID', 'KIND', 'EMAIL / NAME', 'ROLE', 'JOINED'], a.members.map((m) => [m.member_id, m.kind, m.email ?? m.display_name, m.role, m.joined_at]));
      });
    })), ['floe members', 'floe members --org acme --json | jq -r \'.members[] | select(.role == "admin") | .email\'']);

  examples(members.command('set-role')
    .description('make a member an admin, or an admin a member (admin; the organisation keeps one admin who is a person)')
    .argument('<member>', 'the member\'s principal id, email, or an agent\'s name (see `floe members list`)')
    .addArgument(new Argument('<role>', 'the new role').choices(ROLES))
    .action(act(io, async (c, which: string, role: (typeof ROLES)[number]) => {
      const s = await c.session();
      const org = await s.orgId();
      const member = findMember((await ok(s.api.http.GET('/v1/orgs/{org_id}/members', { params: { path: { org_id: org } } }))).members, which);
      const changed = await ok(s.api.http.PATCH('/v1/orgs/{org_id}/members/{member_id}', { params: { path: { org_id: org, member_id: member.member_id } }, body: { role } }));
      c.out.result(changed, (m) => c.out.note(m.previous_role === m.role
        ? `${memberLabel(m)} was already ${m.role === 'admin' ? 'an admin' : 'a member'}.`
        : `${memberLabel(m)} is now ${m.role === 'admin' ? 'an admin' : 'a member'} (was ${m.previous_role}).`));
    })), ['floe members set-role ana@example.com admin', 'floe members set-role p_3f2a… member']);

  examples(members.command('remove')
    .description('remove a member (admin), or leave the organisation (your own id); their grants go with them')
    .argument('<member>', 'the member\'s principal id, email, or an agent\'s name (see `floe members list`)')
    .action(act(io, async (c, which: string) => {
      const s = await c.session();
      const org = await s.orgId();
      const member = findMember((await ok(s.api.http.GET('/v1/orgs/{org_id}/members', { params: { path: { org_id: org } } }))).members, which);
      await c.confirm(`Remove ${memberLabel(member)} (${member.role}) from ${org}; their grants on its catalogs go too`);
      const removed = await ok(s.api.http.DELETE('/v1/orgs/{org_id}/members/{member_id}', { params: { path: { org_id: org, member_id: member.member_id } } }));
      c.out.result(removed, (r) => c.out.note(r.left
        ? `You left ${org}.`
        : `Removed ${memberLabel(member)} from ${org} (${r.grants_removed} grant${r.grants_removed === 1 ? '' : 's'} removed).`));
    })), ['floe members remove ana@example.com', 'floe members remove p_3f2a… --yes']);

  examples(members.command('invitations')
    .description('list the invitations sent, pending or not (admin; make one with `floe invite`)')
    .action(act(io, async (c) => {
      const s = await c.session();
      const answer = await ok(s.api.http.GET('/v1/orgs/{org_id}/invitations', { params: { path: { org_id: await s.orgId() } } }));
      c.out.result(answer, (a) => {
        if (a.invitations.length === 0) return c.out.note('No invitations; send one with `floe invite <email>`.');
        c.out.table(['EMAIL', 'ROLE', 'STATUS', 'SENT', 'EXPIRES'], a.invitations.map((i) => [i.email, i.role, i.status, i.created_at, i.expires_at]));
      });
    })), ['floe members invitations', 'floe members invitations --json | jq -r \'.invitations[] | select(.status == "pending") | .email\'']);
}

function registerInvite(program: Command, io: Io): void {
  examples(program.command('invite')
    .description('invite someone by email to the organisation you act in (an admin who is a person); list invitations with `floe members invitations`')
    .argument('<email>', 'the address to invite; they accept signed in with it')
    .addOption(new Option('--role <role>', 'the role they join with').choices(ROLES).default('member'))
    .action(act(io, async (c, email: string, opts: { role: (typeof ROLES)[number] }) => {
      const s = await c.session();
      const org = await s.orgId();
      const invitation = await ok(s.api.http.POST('/v1/orgs/{org_id}/invitations', { params: { path: { org_id: org } }, body: { email, role: opts.role } }));
      c.out.result(invitation, (i) => {
        c.out.line(i.token);
        c.out.note(`Invited ${i.email} to ${org} as ${i.role === 'admin' ? 'an admin' : 'a member'}, until ${i.expires_at}. `
          + (i.delivery === 'email' ? 'The invitation was mailed to them; ' : 'This Floe sends no mail, so pass it on yourself; ')
          + 'the token above is shown once, and only that address can accept it.');
      });
    })), ['floe invite ana@example.com', 'floe invite ops@example.com --role admin']);
}
