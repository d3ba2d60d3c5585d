import { NAMESPACE_SEPARATOR, joinNamespace, namespacePathSegment, splitNamespace } from './namespace';

describe('namespace levels as one string', () => {
  test('the separator is the unit separator', () => {
    expect(NAMESPACE_SEPARATOR).toBe('\u001f');
  });

  test.each<[string, string[], string]>([
    ['one level', ['lake'], 'lake'],
    ['nested levels', ['accounting', 'tax', 'paid'], 'accounting\u001ftax\u001fpaid'],
    ['levels with dots and spaces', ['a.b', 'c d'], 'a.b\u001fc d'],
  ])('%s join and split back', (_name, levels, joined) => {
    expect(joinNamespace(levels)).toBe(joined);
    expect(splitNamespace(joined)).toEqual(levels);
  });

  test('a path segment is the joined levels percent-encoded, the separator as %1F', () => {
    expect(namespacePathSegment(['accounting', 'tax'])).toBe('accounting%1Ftax');
    expect(namespacePathSegment(['a/b', 'c%d', 'é'])).toBe('a%2Fb%1Fc%25d%1F%C3%A9');
    expect(splitNamespace(decodeURIComponent(namespacePathSegment(['x', 'y z'])))).toEqual(['x', 'y z']);
  });
});
