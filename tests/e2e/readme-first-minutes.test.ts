import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { stack } from './helpers';

// The README's first five minutes, as a newcomer pastes them: the shell block
// under that heading, run by bash against this stack, twice (each run signs
// up a fresh address). It must finish, and end with the rows the sink
// appended, read back by `floe rows`.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function firstFiveMinutes(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## The first five minutes'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('no sh block under "The first five minutes"');
  if (!block.includes('B=http://127.0.0.1:8080')) throw new Error('the block no longer sets B to the default URL');
  return block.replace('B=http://127.0.0.1:8080', `B=${stack().base_url}`);
}

test('the block runs to the end twice, each time reading back the two rows it sent', async () => {
  const script = firstFiveMinutes();
  for (let i = 0; i < 2; i++) {
    const { stdout, stderr } = await run('bash', ['-c', script], { cwd: ROOT, timeout: 90_000 });
    expect(stderr).not.toMatch(/failed/);
    expect(stdout).toMatch(/"accepted":2/);
    // floe rows: a header with the columns, then the two rows.
    expect(stdout).toMatch(/^\s*id\s+msg\b/m);
    expect(stdout).toMatch(/^\s*1\s+hello\b/m);
    expect(stdout).toMatch(/^\s*2\s+world\b/m);
    expect(stdout).toMatch(/Your API key: al_live_/);
    // No step answered an empty value where it should have had one.
    expect(stdout).not.toMatch(/^null$/m);
  }
}, 200_000);
