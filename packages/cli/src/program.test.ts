import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './errors';
import type { Io } from './io';
import { run } from './program';

// Exit codes and messages of command lines that never reach a server.
let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'floe-cli-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function floe(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { env, out: (t) => out.push(t), err: (t) => err.push(t), configDir: dir, readInput: async () => '' };
  const code = await run(argv, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test('help and version exit 0; help names the environment it reads', async () => {
  const help = await floe(['--help']);
  expect(help.code).toBe(EXIT_OK);
  expect(help.out).toMatch(/FLOE_API_KEY/);
  expect(help.out).toMatch(/login[\s\S]*whoami[\s\S]*catalogs[\s\S]*connect[\s\S]*rows[\s\S]*logout/);
  expect((await floe(['--version'])).code).toBe(EXIT_OK);
});

test('usage errors exit 2', async () => {
  expect((await floe([])).code).toBe(EXIT_USAGE);
  expect((await floe(['catalogs', '--bogus'])).code).toBe(EXIT_USAGE);
  expect((await floe(['connect'])).code).toBe(EXIT_USAGE);
  expect((await floe(['connect', 'lake', '--level', 'admin'])).code).toBe(EXIT_USAGE);
  expect((await floe(['login', '--base-url', 'http://127.0.0.1:9', '--catalog', 'lake:owner'])).code).toBe(EXIT_USAGE);
  expect((await floe(['rows', 'lake'])).code).toBe(EXIT_USAGE);
  for (const limit of ['0', '10001', '2.5', 'ten']) expect((await floe(['rows', 'lake', 'demo.events', '--limit', limit])).code).toBe(EXIT_USAGE);
  const noDot = await floe(['rows', 'lake', 'events'], { FLOE_API_KEY: 'al_live_k_s', FLOE_BASE_URL: 'http://127.0.0.1:9' });
  expect(noDot).toMatchObject({ code: EXIT_USAGE, err: 'error: name the table as <namespace>.<table>, not "events"' });
  const noBase = await floe(['catalogs'], { FLOE_API_KEY: 'al_live_k_s' });
  expect(noBase).toMatchObject({ code: EXIT_USAGE });
  expect(noBase.err).toMatch(/no Floe base URL/);
});

test('no key at all is "not logged in", exit 1; logout with nothing stored is fine', async () => {
  const whoami = await floe(['whoami']);
  expect(whoami.code).toBe(EXIT_FAILED);
  expect(whoami.err).toMatch(/not logged in/);
  const logout = await floe(['logout']);
  expect(logout.code).toBe(EXIT_OK);
  expect(logout.err).toMatch(/Not logged in/);
});
