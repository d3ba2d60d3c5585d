import { join } from 'node:path';
import { EXIT_USAGE } from '../errors';
import { NO_SERVER, runFloe, testDir } from '../test-io';
import { destinationFor } from './blobs';

test('get writes to the key\'s last segment, inside a directory when given one', () => {
  expect(destinationFor('reports/2026/q1.pdf', undefined, false)).toBe('q1.pdf');
  expect(destinationFor('reports/2026/q1.pdf', 'out.pdf', false)).toBe('out.pdf');
  expect(destinationFor('reports/2026/q1.pdf', 'downloads', true)).toBe(join('downloads', 'q1.pdf'));
  expect(destinationFor('reports/2026/q1.pdf', 'new-dir/', false)).toBe(join('new-dir', 'q1.pdf'));
  expect(destinationFor('q1.pdf', undefined, false)).toBe('q1.pdf');
});

// Command lines that are wrong before any call (the address answers nothing).
describe('blobs usage errors', () => {
  const floe = (argv: string[]) => runFloe(argv, { env: NO_SERVER });

  test('exit 2', async () => {
    const dir = testDir();
    expect(await floe(['blobs', 'put', 'lake', join(dir, 'no-such-file')])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/is not a file/) });
    expect(await floe(['blobs', 'put', 'lake', dir])).toMatchObject({ code: EXIT_USAGE });
    expect(await floe(['blobs', 'rm', 'lake'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/a key, or --prefix/) });
    expect(await floe(['blobs', 'rm', 'lake', 'a.txt', '--prefix', 'tmp/'])).toMatchObject({ code: EXIT_USAGE });
    expect(await floe(['blobs', 'rm', 'lake', 'a.txt'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/pass --yes/) });
    expect(await floe(['blobs', 'presign', 'lake', 'a.txt', '--expires', 'soon'])).toMatchObject({ code: EXIT_USAGE });
    expect(await floe(['blobs', 'get'])).toMatchObject({ code: EXIT_USAGE });
  });
});
