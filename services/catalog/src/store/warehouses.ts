import type { Keyring } from '@floe/db/sealed';
import type { SqlClient } from '@floe/http';
import type { StoreCredentials } from '@floe/storage';

// The warehouse rows the catalog reads (the control plane writes them), their storage secret keys opened.
//
// Data access here is raw SQL over pg, not the Prisma client: the catalog's
// load and commit paths run named prepared statements (bench/catalog holds
// loads under a millisecond and commits near the storage floor), and a
// commit's transaction must tell a refused statement from one whose outcome
// is unknown by pg's own error classes (@floe/catalog-store's outcome.ts),
// which Prisma's errors hide.

export interface WarehouseRow {
  id: string;
  name: string;
  orgId: string | null;
  tableBucket: string;
  status: string;
  /** The warehouse's own storage identities: the catalog reads and writes metadata as them, never as the admin. */
  rw: StoreCredentials;
  ro: StoreCredentials;
  roleArn: string | null;
  /** The catalog hands out no storage credentials: engines have their requests signed (remote signing). */
  signingOnly: boolean;
}

interface Raw {
  id: string;
  name: string;
  org_id: string | null;
  table_bucket: string;
  status: string;
  storage_access_key: string;
  /** Sealed with the deployment's data key, as every storage secret key is stored. */
  storage_secret_key: string;
  storage_ro_access_key: string;
  storage_ro_secret_key: string;
  role_arn: string | null;
  signing_only: boolean;
}

const COLUMNS = `w.id, w.name, w.org_id, w.table_bucket, w.status, w.storage_access_key, w.storage_secret_key,
                 w.storage_ro_access_key, w.storage_ro_secret_key, w.role_arn, w.signing_only`;

function toRow(r: Raw, keyring: Keyring): WarehouseRow {
  return {
    id: r.id,
    name: r.name,
    orgId: r.org_id,
    tableBucket: r.table_bucket,
    status: r.status,
    rw: { accessKeyId: r.storage_access_key, secretAccessKey: keyring.open(r.storage_secret_key) },
    ro: { accessKeyId: r.storage_ro_access_key, secretAccessKey: keyring.open(r.storage_ro_secret_key) },
    roleArn: r.role_arn,
    signingOnly: r.signing_only,
  };
}

export async function warehouseById(db: SqlClient, keyring: Keyring, id: string): Promise<WarehouseRow | null> {
  const { rows } = await db.query<Raw>({
    name: 'catalog_warehouse_by_id',
    text: `SELECT ${COLUMNS} FROM warehouses w WHERE w.id = $1 AND w.deleted_at IS NULL`,
    values: [id],
  });
  return rows[0] ? toRow(rows[0], keyring) : null;
}

/**
 * The warehouse a catalog credential serves, or null when the credential no
 * longer stands (revoked, or its warehouse deleted or being deleted).
 */
export async function warehouseOfCredential(db: SqlClient, keyring: Keyring, clientId: string): Promise<WarehouseRow | null> {
  const { rows } = await db.query<Raw>({
    name: 'catalog_credential_warehouse',
    text: `SELECT ${COLUMNS} FROM catalog_credentials c JOIN warehouses w ON w.id = c.warehouse_id
            WHERE c.client_id = $1 AND c.revoked_at IS NULL AND w.deleted_at IS NULL AND w.status <> 'deleting'`,
    values: [clientId],
  });
  return rows[0] ? toRow(rows[0], keyring) : null;
}
