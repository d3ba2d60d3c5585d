import { IcebergError } from './errors';
import { checkedLocation, checkWritePaths, conflictOf, derivedLocation, encodeSegment, keyPrefixOf, overlaps } from './locations';

const B = 'acme--lake';

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(IcebergError);
    expect((err as IcebergError).status).toBe(400);
    return (err as IcebergError).message;
  }
  throw new Error('expected a refusal');
}

test('a location inside the table bucket is kept without its trailing slash', () => {
  expect(checkedLocation(`s3://${B}/ns/t/`, B, 'Table location')).toBe(`s3://${B}/ns/t`);
  expect(checkedLocation(`s3://${B}/ns/t%2A-x/y=1`, B, 'Table location')).toBe(`s3://${B}/ns/t%2A-x/y=1`);
});

test.each([
  [`s3://other/ns/t`, /table bucket/],
  [`s3://${B}--blobs/ns/t`, /table bucket/],
  [`s3://${B}`, /table bucket/],
  [`s3://${B}/`, /table bucket/],
  [`s3a://${B}/ns/t`, /s3:\/\//],
  [`http://x/${B}/ns`, /s3:\/\//],
  ['file:///etc', /s3:\/\//],
  [`s3://${B}/*`, /character "\*"/],
  [`s3://${B}/ns/t?`, /character "\?"/],
  [`s3://${B}/ns/$\{aws:userid}`, /character "\$"/],
  [`s3://${B}/ns/a b`, /character " "/],
  [`s3://${B}/ns/%2a`, /character "%"/],
  [`s3://${B}/ns/%zz`, /character "%"/],
  [`s3://${B}/ns/\u0000`, /character/],
  [`s3://${B}/ns/../x`, /segment/],
  [`s3://${B}/ns/./x`, /segment/],
  [`s3://${B}/ns//x`, /segment/],
])('%s is refused', (location, rule) => {
  expect(refusal(() => checkedLocation(location, B, 'Table location'))).toMatch(rule);
});

test('a non-string or over-long location is refused', () => {
  expect(refusal(() => checkedLocation(42, B, 'Table location'))).toMatch(/s3:\/\//);
  expect(refusal(() => checkedLocation(`s3://${B}/${'a'.repeat(600)}`, B, 'Table location'))).toMatch(/longer than 512/);
});

test('conflicts are equal, inside or enclosing, on path boundaries only', () => {
  const t = `s3://${B}/ns/a`;
  expect(conflictOf(t, t)).toBe('equal');
  expect(conflictOf(`${t}/x`, t)).toBe('inside');
  expect(conflictOf(`s3://${B}/ns`, t)).toBe('encloses');
  expect(conflictOf(`s3://${B}/ns/ab`, t)).toBeNull();
  expect(conflictOf(t, `s3://${B}/ns/ab`)).toBeNull();
  expect(overlaps(`s3://${B}/ns`, t)).toBe(true);
  expect(overlaps(`s3://${B}/nsx`, t)).toBe(false);
});

test('write paths must lie within the table location', () => {
  const t = `s3://${B}/ns/a`;
  expect(() => checkWritePaths({ 'write.metadata.path': `${t}/meta`, 'write.data.path': t, other: 'x' }, t, B)).not.toThrow();
  expect(refusal(() => checkWritePaths({ 'write.data.path': `s3://${B}/ns/b` }, t, B))).toMatch(/write\.data\.path .* within the table's own location/);
  expect(refusal(() => checkWritePaths({ 'write.object-storage.path': `s3://other/x` }, t, B))).toMatch(/write\.object-storage\.path/);
  expect(refusal(() => checkWritePaths({ 'write.metadata.path': `${t}/*` }, t, B))).toMatch(/character/);
});

test('derived locations percent-encode every byte outside [A-Za-z0-9._-] and never make a dot segment', () => {
  expect(encodeSegment('star*table?')).toBe('star%2Atable%3F');
  expect(encodeSegment('naïve $x/y')).toBe('na%C3%AFve%20%24x%2Fy');
  expect(encodeSegment('..')).toBe('%2E%2E');
  const location = derivedLocation(B, ['a b', '..'], 'ord*ers', 'f'.repeat(32));
  expect(location).toBe(`s3://${B}/a%20b/%2E%2E/ord%2Aers-${'f'.repeat(32)}`);
  expect(checkedLocation(location, B, 'Table location')).toBe(location);
  expect(keyPrefixOf(location, B)).toBe(`a%20b/%2E%2E/ord%2Aers-${'f'.repeat(32)}/`);
});
