import { maxCatalogNameLength, warehouseBucketNames } from '@floe/storage';

// Catalog (warehouse) names: SQL-friendly identifiers that map onto bucket
// names (`_` becomes `-`). Lowercase letters, digits and single underscores,
// starting with a letter, never ending in `_`; two underscores in a row would
// become the `--` that separates handle and catalog in a bucket name.

const GRAMMAR = /^[a-z](?:[a-z0-9]|_(?!_))*$/;

export function isValidCatalogName(name: string): boolean {
  return GRAMMAR.test(name) && !name.endsWith('_');
}

/** The nearest valid name, offered with `invalid_name`. */
export function suggestCatalogName(name: string): string {
  let s = name.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/_+/g, '_').replace(/^_+|_+$/g, '');
  if (!s) return 'lake';
  if (!/^[a-z]/.test(s)) s = `c_${s}`;
  return s;
}

export type BucketCheck =
  | { ok: true; table: string; blob: string }
  | { ok: false; maxNameLength: number; bucketWouldBe: string };

/** Bucket names are DNS names of at most 63 characters, so the name's length is bounded per owner. */
export function bucketsFor(ownerPart: string, name: string): BucketCheck {
  const b = warehouseBucketNames(ownerPart, name);
  const max = maxCatalogNameLength(ownerPart);
  if (name.length > max) return { ok: false, maxNameLength: max, bucketWouldBe: b.blob };
  return { ok: true, table: b.table, blob: b.blob };
}
