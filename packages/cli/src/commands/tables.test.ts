import { join } from 'node:path';
import { EXIT_USAGE } from '../errors';
import { NO_SERVER, runFloe, testDir } from '../test-io';

// Command lines refused before any call: no server is listening at the base URL.
const floe = (argv: string[]) => runFloe(argv, { env: NO_SERVER });

test('create needs exactly one of --columns and --schema, and well-formed columns', async () => {
  expect(await floe(['tables', 'create', 'lake', 'demo.events'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/exactly one of --columns and --schema/) });
  expect((await floe(['tables', 'create', 'lake', 'demo.events', '--columns', 'id:long', '--schema', '{"fields":[{}]}'])).code).toBe(EXIT_USAGE);
  expect(await floe(['tables', 'create', 'lake', 'demo.events', '--columns', 'id:bigint'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/unknown type "bigint"/) });
  expect((await floe(['tables', 'create', 'lake', 'demo.events', '--columns', 'id:long', '--format-version', '4'])).code).toBe(EXIT_USAGE);
  expect(await floe(['tables', 'create', 'lake', 'events', '--columns', 'id:long'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/<namespace>\.<table>/) });
  expect(await floe(['tables', 'create', 'lake', 'demo.events', '--schema', join(testDir(), 'absent.json')])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/cannot read the schema file .*ENOENT/) });
});

test('drop off a terminal without --yes is a usage error, before any call', async () => {
  expect(await floe(['tables', 'drop', 'lake', 'demo.events'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/Drop table demo\.events .*not confirmed[\s\S]*--yes/) });
});
