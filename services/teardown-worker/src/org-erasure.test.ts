import { randomBytes } from 'node:crypto';
import { createLogger } from '@floe/http';
import { beginDeletion } from '@floe/catalogs';
import { throwawayDatabase } from '../../../tests/support/throwaway-db';
import { eraseAbandonedOrganizations } from './org-erasure';

// Against the real Postgres: a throwaway database with the real migrations.
const db = throwawayDatabase('erasure');
const logger = createLogger('test', 'error');

async function org(status: string, opts: { member?: boolean; warehouse?: string } = {}): Promise<string> {
  const id = `org_${randomBytes(6).toString('hex')}`;
  await db.pool().query(`INSERT INTO organizations (id, name, handle, status) VALUES ($1, $1, $1, $2)`, [id, status]);
  await db.pool().query(`INSERT INTO projects (id, name, provider, region, org_id, owner_id) VALUES ($1, 'p', 'ceph', 'local', $2, 'p_x')`, [`prj_${id}`, id]);
  if (opts.member) {
    await db.pool().query(`INSERT INTO principals (id, kind) VALUES ('p_y', 'human') ON CONFLICT DO NOTHING`);
    await db.pool().query(`INSERT INTO memberships (org_id, principal_id, role, joined_via) VALUES ($1, 'p_y', 'member', 'invitation')`, [id]);
  }
  if (opts.warehouse) {
    await db.pool().query(
      `INSERT INTO warehouses (id, name, project_id, org_id, table_bucket, blob_bucket, status, storage_uid, storage_access_key, storage_secret_key,
         storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name)
       VALUES ($1, 'lake', $2, $3, $1, $1 || '-b', $4, 'u', '', '', 'u-ro', '', '', 'r')`, [`w_${id}`, `prj_${id}`, id, opts.warehouse]);
  }
  return id;
}

const exists = async (id: string) => (await db.pool().query(`SELECT 1 FROM organizations WHERE id = $1`, [id])).rowCount === 1;

// The catalog's deletion as far as the database goes (its storage and queue steps are the e2e tests').
const deleteCatalog = async (id: string) => {
  await beginDeletion(db.prisma(), id, { graceSeconds: 60, reason: 'org_erasure', actor: { principalId: null, kind: null, requestId: null, ip: null } });
};

test('erases organisations marked deleting with no member and no live catalog, with their projects; deletes the catalogs of the rest first', async () => {
  const gone = await org('deleting');
  const catalogDeleted = await org('deleting', { warehouse: 'deleted' });
  const hasCatalog = await org('deleting', { warehouse: 'ready' });
  const rejoined = await org('deleting', { member: true });
  const active = await org('active');
  const erased = await eraseAbandonedOrganizations({ prisma: db.prisma(), logger, deleteCatalog });
  expect(erased.sort()).toEqual([gone, catalogDeleted].sort());
  // The abandoned organisation's catalog is being deleted (the member's organisation keeps its own).
  expect((await db.pool().query(`SELECT status, tombstone->>'reason' AS reason FROM warehouses WHERE org_id = $1`, [hasCatalog])).rows).toEqual([{ status: 'deleting', reason: 'org_erasure' }]);
  expect(await exists(gone)).toBe(false);
  expect((await db.pool().query(`SELECT 1 FROM projects WHERE org_id = $1`, [gone])).rowCount).toBe(0);
  for (const kept of [hasCatalog, rejoined, active]) expect(await exists(kept)).toBe(true);
  // A second pass finds nothing more.
  expect(await eraseAbandonedOrganizations({ prisma: db.prisma(), logger, deleteCatalog })).toEqual([]);
  // Once its teardown has ended, the organisation goes too.
  await db.pool().query(`UPDATE warehouses SET status = 'deleted' WHERE org_id = $1`, [hasCatalog]);
  expect(await eraseAbandonedOrganizations({ prisma: db.prisma(), logger, deleteCatalog })).toEqual([hasCatalog]);
});
