// Which engines read and write each Iceberg format version a catalog may
// default to: answered with a warehouse and by the table routes.

export function formatInfo(v: 2 | 3) {
  return v === 2
    ? { writers: ['spark>=3.3', 'pyiceberg>=0.6', 'duckdb>=1.4', 'trino>=420', 'floe'], readers: ['spark>=3.3', 'pyiceberg>=0.6', 'duckdb>=1.2', 'trino>=420'], note: 'Version 2 is read and written by every current Iceberg engine.' }
    : { writers: ['spark>=4.0+iceberg-1.10', 'pyiceberg>=0.10', 'floe'], readers: ['spark>=4.0+iceberg-1.10', 'pyiceberg>=0.10', 'duckdb>=1.4'], note: 'Version 3 adds row lineage, deletion vectors and geometry types; check that every engine you use reads it.' };
}
