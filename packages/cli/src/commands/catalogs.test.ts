import { EXIT_USAGE } from '../errors';
import { NO_SERVER, runFloe } from '../test-io';

// Command lines refused before any call: no server is listening at the base URL.
const floe = (argv: string[]) => runFloe(argv, { env: NO_SERVER });

test('usage errors exit 2 before any call', async () => {
  expect(await floe(['catalogs', 'create', 'events', '--project', 'p', '--format-version', '4'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/2 or 3/) });
  expect((await floe(['catalogs', 'create'])).code).toBe(EXIT_USAGE);
  expect((await floe(['catalogs', 'show'])).code).toBe(EXIT_USAGE);
  expect((await floe(['catalogs', 'list', '--bogus'])).code).toBe(EXIT_USAGE);
  expect(await floe(['catalogs', 'set', 'lake'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/nothing to change/) });
  expect(await floe(['catalogs', 'set', 'lake', '--storage-access', 'sometimes'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/vended or signing_only/) });
});

test('rotate off a terminal without --yes is a usage error, before any call', async () => {
  expect(await floe(['catalogs', 'rotate', 'lake'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/credentials of catalog lake.*not confirmed[\s\S]*--yes/) });
});
