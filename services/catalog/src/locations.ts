import { s3Uri } from '@floe/storage';
import { badRequest } from './errors';

// A table's location is a credential: vended storage sessions are narrowed to
// it, purges delete under it, metadata files are written in it. So every path
// that sets or derives one (create, stage-create, register, commit, the
// write.*.path properties, views) holds it to one rule, kept here:
//
//   - an `s3://` URI inside the warehouse's own table bucket (never the bucket
//     itself, never another bucket — the blob bucket included);
//   - path segments of letters, digits, `.`, `_`, `-`, `=` and `%XX` escapes
//     only: `*`, `?` and `$` are wildcards or variables in IAM policies (a
//     session policy for `s3://b/*` would cover the whole bucket), and no
//     other character is needed once the catalog percent-encodes what it
//     derives;
//   - no empty, `.` or `..` segments (clients normalise them differently);
//   - never equal to, inside or enclosing another live table's or view's
//     location (the database check: packages/catalog-store's locations.ts).
//
// Locations are compared without their trailing slash, on `/` boundaries:
// `s3://b/a/ab` is neither inside nor around `s3://b/a/a`.

const SAFE_SEGMENT = /^(?:[A-Za-z0-9._=-]|%[0-9A-F]{2})+$/;
const UNSAFE_CHARACTER = /[^A-Za-z0-9._=\-/%]|%(?![0-9A-F]{2})/;
/** S3 keys are at most 1024 bytes; a table's own files need room below its location. */
export const MAX_LOCATION_LENGTH = 512;

export const WRITE_PATH_PROPERTIES = ['write.metadata.path', 'write.data.path', 'write.object-storage.path'] as const;

export const tableBucketRoot = (bucket: string) => s3Uri(bucket);

/**
 * The location as the catalog keeps it (no trailing slash), or a 400
 * BadRequestException naming the rule it breaks. `what` names the field in
 * the message ("Table location", "write.data.path", …).
 */
export function checkedLocation(raw: unknown, bucket: string, what: string): string {
  if (typeof raw !== 'string' || raw.length === 0) throw badRequest(`${what} must be an s3:// URI`);
  if (raw.length > MAX_LOCATION_LENGTH) throw badRequest(`${what} is longer than ${MAX_LOCATION_LENGTH} characters`);
  if (!raw.startsWith('s3://')) throw badRequest(`${what} ${raw} must be an s3:// URI inside this warehouse's table bucket ${tableBucketRoot(bucket)}`);
  const root = tableBucketRoot(bucket);
  const location = raw.replace(/\/+$/, '');
  if (!location.startsWith(root) || location.length === root.length) {
    throw badRequest(`${what} ${raw} must be inside this warehouse's table bucket ${root} (not the bucket itself, not another bucket)`);
  }
  const bad = UNSAFE_CHARACTER.exec(location.slice(root.length));
  if (bad) {
    throw badRequest(`${what} ${raw} holds the character ${JSON.stringify(bad[0])}: locations use letters, digits, . _ - = and %XX escapes only (*, ? and $ are wildcards in storage policies)`);
  }
  for (const segment of location.slice(root.length).split('/')) {
    if (segment === '' || segment === '.' || segment === '..' || !SAFE_SEGMENT.test(segment)) {
      throw badRequest(`${what} ${raw} has an empty, "." or ".." path segment`);
    }
  }
  return location;
}

/** True when `inner` is `outer` or lies below it. */
export function isWithin(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(`${outer}/`);
}

/** Two locations conflict when they are equal or one encloses the other. */
export const overlaps = (a: string, b: string) => isWithin(a, b) || isWithin(b, a);

/** How `candidate` conflicts with a live `existing` location, in the words of the refusal. */
export function conflictOf(candidate: string, existing: string): 'equal' | 'inside' | 'encloses' | null {
  if (candidate === existing) return 'equal';
  if (isWithin(candidate, existing)) return 'inside';
  if (isWithin(existing, candidate)) return 'encloses';
  return null;
}

/**
 * write.metadata.path, write.data.path and write.object-storage.path, when
 * set, must lie within the table's own location: that location is what a
 * vended session covers and what a purge removes, so a file written anywhere
 * else would be out of the table's reach and out of its owner's.
 */
export function checkWritePaths(properties: Record<string, string> | undefined, location: string, bucket: string): void {
  for (const key of WRITE_PATH_PROPERTIES) {
    const value = properties?.[key];
    if (value === undefined) continue;
    const path = checkedLocation(value, bucket, key);
    if (!isWithin(path, location)) throw badRequest(`${key} ${value} must lie within the table's own location ${location}`);
  }
}

/** One path segment of a location the catalog derives from a name: every byte outside [A-Za-z0-9._-] as %XX. */
export function encodeSegment(name: string): string {
  const encoded = [...Buffer.from(name, 'utf8')]
    .map((b) => (/[A-Za-z0-9._-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
  // "." and ".." are names a namespace may not take, but never let one become a path step.
  return encoded === '.' || encoded === '..' ? encoded.replace(/\./g, '%2E') : encoded;
}

/** Where a new table or view goes when the request names no location: `<bucket>/<ns levels>/<name>-<uuid hex>`. */
export function derivedLocation(bucket: string, namespace: string[], name: string, uniqueHex: string): string {
  return `${tableBucketRoot(bucket)}${[...namespace.map(encodeSegment), `${encodeSegment(name)}-${uniqueHex}`].join('/')}`;
}

/** The object-key prefix a location covers, with its trailing slash (what a session policy or a purge is given). */
export function keyPrefixOf(location: string, bucket: string): string {
  return `${location.slice(tableBucketRoot(bucket).length)}/`;
}

/** The refusal of a location another holder has: names the rule (equal, inside, encloses) and the holder. */
export function locationTaken(what: string, location: string, holder: { kind: 'table' | 'view' | 'purge'; identifier: string; location: string }) {
  const whose = holder.kind === 'purge'
    ? `the dropped table ${holder.identifier}, whose purge has not finished`
    : `the ${holder.kind} ${holder.identifier}`;
  switch (conflictOf(location, holder.location)) {
    case 'equal': return badRequest(`${what} ${location} is already held by ${whose}: no two tables or views share a location`);
    case 'inside': return badRequest(`${what} ${location} lies inside ${holder.location}, the location of ${whose}`);
    default: return badRequest(`${what} ${location} encloses ${holder.location}, the location of ${whose}`);
  }
}
