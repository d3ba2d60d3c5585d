// Catalog (warehouse) names: SQL-friendly identifiers that map onto bucket
// names (`_` becomes `-`; the naming rule is warehouseBuckets in
// packages/storage). Lowercase letters, digits and single underscores,
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
