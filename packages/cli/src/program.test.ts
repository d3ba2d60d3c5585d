import type { Command } from 'commander';
import { EXIT_AUTH, EXIT_OK, EXIT_USAGE } from './errors';
import { buildProgram } from './program';
import { fakeIo, NO_SERVER, runFloe } from './test-io';

// Exit codes, help and messages of command lines that never reach a server.
const floe = (argv: string[], env: NodeJS.ProcessEnv = {}) => runFloe(argv, { env });

const leaves = (cmd: Command, path: string[] = []): string[][] =>
  cmd.commands.length ? cmd.commands.flatMap((c) => leaves(c, [...path, c.name()])) : [path];

test('help and version exit 0; help names the environment, the exit codes and the command groups', async () => {
  const help = await floe(['--help']);
  expect(help.code).toBe(EXIT_OK);
  expect(help.out).toMatch(/FLOE_API_KEY[\s\S]*FLOE_PROFILE/);
  expect(help.out).toMatch(/3 not logged in or not allowed/);
  expect(help.out).toMatch(/auth[\s\S]*orgs[\s\S]*catalogs[\s\S]*tables[\s\S]*sinks[\s\S]*blobs[\s\S]*uploaders[\s\S]*keys[\s\S]*agents[\s\S]*usage[\s\S]*audit[\s\S]*connect[\s\S]*mcp[\s\S]*completion/);
  expect((await floe(['--version'])).code).toBe(EXIT_OK);
});

test('every command\'s --help ends with examples', async () => {
  const program = buildProgram(fakeIo().io);
  const all = leaves(program);
  expect(all.length).toBeGreaterThan(40);
  for (const path of all) {
    const r = await floe([...path, '--help']);
    expect({ path: path.join(' '), code: r.code, examples: /\nExamples:\n {2}\$ /.test(r.out) }).toEqual({ path: path.join(' '), code: EXIT_OK, examples: true });
  }
});

test('usage errors exit 2', async () => {
  expect((await floe([])).code).toBe(EXIT_USAGE);
  expect((await floe(['keys', 'list', '--bogus'])).code).toBe(EXIT_USAGE);
  expect((await floe(['connect'])).code).toBe(EXIT_USAGE);
  expect((await floe(['connect', 'lake', '--level', 'admin'])).code).toBe(EXIT_USAGE);
  expect((await floe(['connect', 'lake', '--engine', 'excel'])).code).toBe(EXIT_USAGE);
  expect((await floe(['auth', 'login', '--base-url', 'http://127.0.0.1:9', '--catalog', 'lake:owner'])).code).toBe(EXIT_USAGE);
  expect((await floe(['auth', 'login', '--role', 'owner'])).code).toBe(EXIT_USAGE);
  expect((await floe(['completion', 'powershell'])).code).toBe(EXIT_USAGE);
  expect((await floe(['rows', 'lake'])).code).toBe(EXIT_USAGE);
  for (const limit of ['0', '10001', '2.5', 'ten']) expect((await floe(['rows', 'lake', 'demo.events', '--limit', limit])).code).toBe(EXIT_USAGE);
  const noDot = await floe(['rows', 'lake', 'events'], NO_SERVER);
  expect(noDot).toMatchObject({ code: EXIT_USAGE, err: 'error: name the table as <namespace>.<table>, not "events"' });
  const noBase = await floe(['keys'], { FLOE_API_KEY: 'al_live_k_s' });
  expect(noBase).toMatchObject({ code: EXIT_USAGE });
  expect(noBase.err).toMatch(/no Floe base URL/);
});

test('no key at all is "not logged in", exit 3, and with --json the same as JSON on stderr; logout with nothing stored is fine', async () => {
  const whoami = await floe(['whoami']);
  expect(whoami.code).toBe(EXIT_AUTH);
  expect(whoami.err).toMatch(/not logged in/);
  const json = await floe(['keys', '--json'], { FLOE_BASE_URL: 'http://127.0.0.1:9' });
  expect(json.code).toBe(EXIT_AUTH);
  expect(JSON.parse(json.err)).toEqual({ error: { code: 'not_logged_in', message: 'not logged in', remedy: expect.stringMatching(/floe auth login/) }, exit_code: EXIT_AUTH });
  expect(json.out).toBe('');
  const logout = await floe(['logout']);
  expect(logout.code).toBe(EXIT_OK);
  expect(logout.err).toMatch(/Not logged in/);
});

test('a confirmation off a terminal needs --yes (exit 2); on a terminal a wrong answer changes nothing (exit 1)', async () => {
  const env = NO_SERVER;
  const { ctxOf } = await import('./command');
  const program = buildProgram(fakeIo({ env }).io);
  const offTerminal = ctxOf(fakeIo({ env }).io, program);
  await expect(offTerminal.confirm('Delete catalog lake', 'lake')).rejects.toMatchObject({ exitCode: EXIT_USAGE, hint: expect.stringMatching(/--yes/) });
  const { io, err } = fakeIo({ env, tty: true, answer: 'lak' });
  const wrong = ctxOf(io, program);
  await expect(wrong.confirm('Delete catalog lake', 'lake')).rejects.toMatchObject({ exitCode: 1, code: 'not_confirmed' });
  expect(err).toEqual(['Delete catalog lake. Type "lake" to confirm: ']);
  await expect(ctxOf(fakeIo({ env, tty: true, answer: 'lake' }).io, program).confirm('Delete catalog lake', 'lake')).resolves.toBeUndefined();
  await expect(ctxOf(fakeIo({ env, tty: true, answer: 'y' }).io, program).confirm('Revoke it')).resolves.toBeUndefined();
});
