// Quoting for the few caller-given strings (paths, column names, metadata
// values) that have to be spelled inside DuckDB statements: table functions
// and COPY options take no bound parameters. DuckDB's plain string literals
// have no backslash escapes, so doubling the quote is the whole rule.

export const literal = (s: string): string => `'${s.replaceAll("'", "''")}'`;

export const ident = (s: string): string => `"${s.replaceAll('"', '""')}"`;

export const pathList = (paths: readonly string[]): string => `[${paths.map(literal).join(', ')}]`;
