import { CliError, EXIT_FAILED, EXIT_USAGE } from '../errors';
import { NO_SERVER, runFloe } from '../test-io';
import { findMember, memberLabel, policyFields, type Member } from './orgs';

const member = (m: Partial<Member>): Member => ({
  member_id: 'p_1', principal_id: 'p_1', kind: 'human', email: null, display_name: null, role: 'member', joined_via: 'invitation', joined_at: '2026-01-01T00:00:00Z', ...m,
});
const ana = member({ member_id: 'p_ana', principal_id: 'p_ana', email: 'Ana@Example.com', role: 'admin' });
const bot = member({ member_id: 'p_bot', principal_id: 'p_bot', kind: 'agent', display_name: 'ci-runner' });

test('a member is found by principal id, by address whatever its case, or an agent by its name', () => {
  expect(findMember([ana, bot], 'p_bot')).toBe(bot);
  expect(findMember([ana, bot], 'ana@example.com')).toBe(ana);
  expect(findMember([ana, bot], 'ci-runner')).toBe(bot);
  expect(() => findMember([ana, member({ member_id: 'p_x', display_name: 'Ana' })], 'Ana')).toThrow(CliError);
  const err = (() => { try { findMember([ana, bot], 'bob@example.com'); } catch (e) { return e; } })();
  expect(err).toBeInstanceOf(CliError);
  expect(err).toMatchObject({ exitCode: EXIT_FAILED, code: 'member_not_found' });
});

test('a member reads as address, else name, else id', () => {
  expect(memberLabel(ana)).toBe('Ana@Example.com');
  expect(memberLabel(bot)).toBe('ci-runner');
  expect(memberLabel(member({}))).toBe('p_1');
});

test('the policy marks the fields that differ from the default', () => {
  const defaults = { agents: 'members', device_login: 'members', oauth_consent: 'members', public_catalogs: 'admins', second_factor: 'optional' } as const;
  const fields = policyFields({
    org_id: 'org_1', handle: 'acme', role: 'admin', defaults, choices: { agents: [], device_login: [], oauth_consent: [], public_catalogs: [], second_factor: [] },
    policy: { ...defaults, agents: 'admins' }, updated_at: '2026-02-01T00:00:00Z', updated_by: 'p_ana',
    domain_join: true, domains: [{ domain: 'acme.test', claimed_by: 'p_ana', claimed_at: '2026-02-01T00:00:00Z' }, { domain: 'acme.example', claimed_by: 'p_ana', claimed_at: '2026-02-02T00:00:00Z' }],
  });
  expect(fields).toEqual([
    ['organisation', 'acme (org_1)'], ['your role', 'admin'], ['agents', 'admins (default members)'], ['device_login', 'members'],
    ['oauth_consent', 'members'], ['public_catalogs', 'admins'], ['second_factor', 'optional'], ['changed', '2026-02-01T00:00:00Z by p_ana'],
    ['domain join', 'on'], ['mail domains', 'acme.test, acme.example'],
  ]);
});

test('a role that is neither member nor admin is a usage error, before any call', async () => {
  const floe = (argv: string[]) => runFloe(argv, { env: NO_SERVER });
  expect((await floe(['members', 'set-role', 'ana@example.com', 'owner'])).code).toBe(EXIT_USAGE);
  expect((await floe(['invite', 'ana@example.com', '--role', 'owner'])).code).toBe(EXIT_USAGE);
  expect((await floe(['invite'])).code).toBe(EXIT_USAGE);
});
