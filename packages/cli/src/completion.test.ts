import { execFileSync } from 'node:child_process';
import { completionScript, completionTable } from './commands/completion';
import type { Io } from './io';
import { buildProgram } from './program';

const program = buildProgram({ env: {}, out: () => {}, err: () => {}, configDir: '/nonexistent', readInput: async () => '' } as Io);

test('the table has every command path with its subcommands, options and the global options', () => {
  const table = new Map(completionTable(program));
  expect(table.get('')).toEqual(expect.arrayContaining(['auth', 'catalogs', 'sinks', 'blobs', 'completion', '--json', '--profile', '--yes']));
  expect(table.get('auth')).toEqual(expect.arrayContaining(['login', 'logout', 'status', 'token', 'switch']));
  expect(table.get('auth login')).toEqual(expect.arrayContaining(['--role', '--with-key', '--json']));
});

// bash is on every machine this runs on; the script is run as bash runs it on Tab.
function bashComplete(words: string[]): string[] {
  const script = `${completionScript('bash', program)}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _floe; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', script], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

test('bash completes commands, subcommands and options down the tree, skipping options typed before', () => {
  expect(bashComplete(['floe', 'ca'])).toEqual(['catalogs']);
  expect(bashComplete(['floe', '--json', 'auth', 'lo'])).toEqual(['login', 'logout']);
  expect(bashComplete(['floe', 'auth', 'login', '--ro'])).toEqual(['--role']);
  expect(bashComplete(['floe', 'nope', 'x'])).toEqual([]);
});

test('zsh and fish scripts register for floe and carry the same table', () => {
  const zsh = completionScript('zsh', program);
  expect(zsh).toMatch(/^#compdef floe/);
  expect(zsh).toMatch(/'auth login'\) print -r -- '[^']*--role/);
  const fish = completionScript('fish', program);
  expect(fish).toMatch(/complete -c floe -f -a/);
  expect(fish).toMatch(/case 'auth'\n\s+echo '[^']*login logout status token switch/);
});
