import { parseCatalogSpec } from './catalog-spec';
import { CliError, EXIT_USAGE } from './errors';

test('name or id, with an optional level, else the --level fallback', () => {
  expect(parseCatalogSpec('lake')).toEqual({ name: 'lake' });
  expect(parseCatalogSpec('lake:read')).toEqual({ name: 'lake', level: 'read' });
  expect(parseCatalogSpec('lake', 'write')).toEqual({ name: 'lake', level: 'write' });
  expect(parseCatalogSpec('lake:read', 'write')).toEqual({ name: 'lake', level: 'read' });
  expect(parseCatalogSpec('0b0f5b8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b:write')).toEqual({ warehouse_id: '0b0f5b8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', level: 'write' });
});

test('a bad level or no catalog is a usage error', () => {
  for (const spec of ['lake:admin', ':read', '']) {
    const err = (() => { try { parseCatalogSpec(spec); } catch (e) { return e; } })();
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT_USAGE);
  }
});
