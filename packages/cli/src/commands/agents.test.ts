import { CliError, EXIT_USAGE } from '../errors';
import { NO_SERVER, runFloe } from '../test-io';
import { changesText, grantsText, parseGrant } from './agents';

const lake = { warehouse_id: 'w1', name: 'lake', level: 'write' as const };
const sales = { warehouse_id: 'w2', name: 'sales', level: 'read' as const };

test('a grant is a catalog name or id and a level, split at the last colon', () => {
  expect(parseGrant('lake:write')).toEqual({ warehouse_id: 'lake', level: 'write' });
  expect(parseGrant(' lake : read ')).toEqual({ warehouse_id: 'lake', level: 'read' });
  expect(parseGrant('0b0f5b8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b:read')).toEqual({ warehouse_id: '0b0f5b8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', level: 'read' });
});

test('a grant without a catalog, or without a level of read or write, is a usage error', () => {
  for (const spec of ['lake:admin', 'lake', 'lake:', ':read', '']) {
    const err = (() => { try { parseGrant(spec); } catch (e) { return e; } })();
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT_USAGE);
  }
});

test('grants read as catalog:level, the rest counted past the limit', () => {
  expect(grantsText([])).toBe('none');
  expect(grantsText([lake, sales])).toBe('lake:write, sales:read');
  expect(grantsText([lake, sales, lake, sales], 3)).toBe('lake:write, sales:read, lake:write +1 more');
});

test('an edit reads as what it changed, from what it was', () => {
  const agent = { name: 'ci', role: 'admin' as const, grants: [lake], previous: { name: 'ci-old', role: 'member' as const, confined: true, grants: [sales] } };
  expect(changesText({ ...agent, updated: ['name', 'role', 'grants'] })).toBe('name ci-old → ci; role member → admin; grants sales:read → lake:write');
  expect(changesText({ ...agent, updated: [] })).toBe('nothing changed');
});

describe('command lines refused before any call', () => {
  const floe = (argv: string[]) => runFloe(argv, { env: NO_SERVER });

  test('bad grants, roles and empty edits exit 2', async () => {
    expect(await floe(['agents', 'create', 'ci', '--grant', 'lake:admin'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/--grant "lake:admin": write it as <catalog>:read/) });
    expect((await floe(['agents', 'create', 'ci', '--grant', 'lake:read', '--grant', 'sales'])).code).toBe(EXIT_USAGE);
    expect((await floe(['agents', 'create', 'ci', '--role', 'owner'])).code).toBe(EXIT_USAGE);
    expect(await floe(['agents', 'edit', 'ci'])).toMatchObject({ code: EXIT_USAGE, err: expect.stringMatching(/nothing to change/) });
    expect((await floe(['agents', 'edit', 'ci', '--grant', 'lake:read', '--clear-grants'])).code).toBe(EXIT_USAGE);
    expect((await floe(['agents', 'show'])).code).toBe(EXIT_USAGE);
  });
});
