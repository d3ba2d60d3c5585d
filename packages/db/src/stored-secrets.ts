// The data migration of sealed secrets. Versions before sealing stored the
// warehouses' storage secret keys and the JWT private keys in plain text; a
// copy of such a database would hand them out. After the SQL migrations,
// every plaintext value in a sealed column is sealed under the current data
// key (and, for `npm run secrets:reseal`, every value sealed under an older
// key is sealed again under the current one).
//
// Safe to run at every start and from several processes at once: each value
// is replaced with a compare-and-set on the value read, so a value another
// runner (or a live writer) changed meanwhile is left to them, and a value
// already in the wanted form is never read again.
import pg from 'pg';
import { applyMigrations, type ApplyOptions } from './migrate';
import { Keyring, isSealed } from './sealed';

interface SealedColumn {
  table: string;
  key: string;
  column: string;
}

/** Every column that holds a sealed value; readers and writers open and seal through sealed.ts. */
const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'warehouses', key: 'id', column: 'storage_secret_key' },
  { table: 'warehouses', key: 'id', column: 'storage_ro_secret_key' },
  { table: 'signing_keys', key: 'kid', column: 'private_jwk' },
  { table: 'totp_factors', key: 'principal_id', column: 'secret' },
];

const PAGE = 500;

export interface SealReport {
  /** Plaintext values sealed. */
  sealed: number;
  /** Values moved from an older data key to the current one. */
  resealed: number;
}

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Seals plaintext values (and, with `reseal`, re-seals values of older keys)
 * in every sealed column. Empty values are a row without keys yet
 * (`creating` warehouses) and stay empty.
 */
export async function sealStoredSecrets(db: Queryable, keyring: Keyring, opts: { reseal?: boolean } = {}): Promise<SealReport> {
  const report: SealReport = { sealed: 0, resealed: 0 };
  for (const c of SEALED_COLUMNS) await refuseUnknownKeys(db, keyring, c);
  // Values already in the wanted form are skipped by the query itself.
  const done = opts.reseal ? `v1:${keyring.currentKeyId}:` : 'v1:';
  for (const c of SEALED_COLUMNS) {
    let after = '';
    for (;;) {
      const { rows } = await db.query<{ k: string; v: string }>(
        `SELECT ${c.key} AS k, ${c.column} AS v FROM ${c.table}
          WHERE ${c.column} <> '' AND left(${c.column}, length($1)) <> $1 AND ${c.key} > $2 ORDER BY ${c.key} LIMIT ${PAGE}`,
        [done, after],
      );
      for (const { k, v } of rows) {
        const wasSealed = isSealed(v);
        const next = keyring.seal(wasSealed ? keyring.open(v) : v);
        const { rowCount } = await db.query(`UPDATE ${c.table} SET ${c.column} = $3 WHERE ${c.key} = $1 AND ${c.column} = $2`, [k, v, next]);
        if (rowCount) report[wasSealed ? 'resealed' : 'sealed'] += 1;
      }
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1].k;
    }
  }
  return report;
}

/** A value sealed under a key the deployment no longer lists can never be opened: say so before anything is changed. */
async function refuseUnknownKeys(db: Queryable, keyring: Keyring, c: SealedColumn): Promise<void> {
  const { rows } = await db.query<{ id: string; n: number }>(
    `SELECT split_part(${c.column}, ':', 2) AS id, count(*)::int AS n FROM ${c.table} WHERE left(${c.column}, 3) = 'v1:' GROUP BY 1 ORDER BY 1`,
  );
  const unknown = rows.filter((r) => !keyring.knows(r.id));
  if (unknown.length) {
    const n = unknown.reduce((sum, r) => sum + r.n, 0);
    throw new Error(`${n} value(s) in ${c.table}.${c.column} are sealed under data key ${unknown.map((r) => r.id).join(', ')}, which FLOE_DATA_KEYS does not list`);
  }
}

/**
 * The database brought up to this release: pending SQL migrations, then the
 * data migration that seals what older versions stored in plain text. The
 * stack's start, `npm run db:migrate` and the Kubernetes migration Job all
 * run this.
 */
export async function migrateDatabase(databaseUrl: string, keyring: Keyring, opts: ApplyOptions = {}): Promise<{ applied: string[]; sealed: SealReport }> {
  const { applied } = await applyMigrations(databaseUrl, opts);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    return { applied, sealed: await sealStoredSecrets(pool, keyring) };
  } finally {
    await pool.end();
  }
}
