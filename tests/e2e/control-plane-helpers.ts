import { randomBytes } from 'node:crypto';
import { bearer, db, expectError, gateway, newPrincipal, type NewPrincipal } from './helpers';

// Organisations for control-plane tests. Until the organisation routes exist
// (a later issue), an organisation and its memberships are written straight
// into the database, exactly as sign-up and invitations will write them;
// everything else goes through the public API.

export interface TestOrg {
  org_id: string;
  handle: string;
  name: string;
}

export const uniq = () => randomBytes(3).toString('hex');

export async function newOrg(): Promise<TestOrg> {
  const pool = db();
  try {
    const handle = `t${uniq()}${uniq()}`;
    const org = { org_id: `org_${randomBytes(12).toString('hex')}`, handle, name: `Org ${handle}` };
    await pool.query(`INSERT INTO organizations (id, name, handle, status) VALUES ($1, $2, $3, 'active')`, [org.org_id, org.name, org.handle]);
    return org;
  } finally {
    await pool.end();
  }
}

export async function join(org: TestOrg, p: NewPrincipal, role: 'admin' | 'member', opts: { confined?: boolean } = {}): Promise<void> {
  const pool = db();
  try {
    await pool.query(
      `INSERT INTO memberships (org_id, principal_id, role, joined_via, confined) VALUES ($1, $2, $3, $4, $5)`,
      [org.org_id, p.principal_id, role, role === 'admin' ? 'creator' : 'invitation', opts.confined ?? true],
    );
  } finally {
    await pool.end();
  }
}

/** A fresh organisation with one human admin. */
export async function newOrgWithAdmin(): Promise<{ org: TestOrg; admin: NewPrincipal }> {
  const org = await newOrg();
  const admin = await newPrincipal('human');
  await join(org, admin, 'admin');
  return { org, admin };
}

/** A member (human, or an agent token) of an organisation. */
export async function newMember(org: TestOrg, kind: 'human' | 'agent' = 'human', role: 'admin' | 'member' = 'member'): Promise<NewPrincipal> {
  const p = await newPrincipal(kind);
  await join(org, p, role);
  return p;
}

export async function newProject(apiKey: string, name = `proj-${uniq()}`): Promise<{ project_id: string; name: string; org_id: string | null }> {
  const res = await gateway().post('/v1/projects').set(bearer(apiKey)).send({ name });
  if (res.status !== 201) throw new Error(`creating a project failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** POST /v1/warehouses, expecting 201 and status ready. */
export async function newWarehouse(apiKey: string, projectId: string, name = `wh_${uniq()}`, extra: Record<string, unknown> = {}) {
  const res = await gateway().post('/v1/warehouses').set(bearer(apiKey)).send({ project_id: projectId, name, ...extra });
  if (res.status !== 201) throw new Error(`creating a warehouse failed: ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body.status).toBe('ready');
  return res.body as { warehouse_id: string; name: string; bucket: string; blob_bucket: string; project_id: string; warehouse: string };
}

/** A catalog and the callers a level test needs: its organisation's admin (write), a member (read), an agent token without a grant, another organisation's admin. */
export async function catalogWithCallers(namePrefix: string) {
  const o = await newOrgWithAdmin();
  const reader = await newMember(o.org);
  const ungranted = await newMember(o.org, 'agent');
  const stranger = (await newOrgWithAdmin()).admin;
  const w = await newWarehouse(o.admin.api_key, (await newProject(o.admin.api_key)).project_id, `${namePrefix}_${uniq()}`);
  return { admin: o.admin, reader, ungranted, stranger, w };
}

export type CatalogCallers = Awaited<ReturnType<typeof catalogWithCallers>>;

export { bearer, expectError, gateway };
