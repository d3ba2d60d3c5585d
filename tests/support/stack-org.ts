import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import type { StackState } from '../../scripts/lib/stack';

// For tests that run their own private stack (the fault tests): a person who
// is the admin of a fresh organisation, made the way the e2e helpers make one
// (organisations are written to the database until their routes exist).
export async function orgAdminKey(state: StackState, label: string): Promise<string> {
  const created = await request(state.services.identity.url).post('/internal/principals')
    .set('Authorization', `Bearer ${state.bootstrap_secret}`).send({ kind: 'human', email: `${label}-${randomBytes(3).toString('hex')}@example.com`, label });
  if (created.status !== 201) throw new Error(`creating a principal failed: ${created.status} ${JSON.stringify(created.body)}`);
  const pool = new pg.Pool({ connectionString: state.database_url, max: 1 });
  try {
    const org = `org_${randomBytes(12).toString('hex')}`;
    await pool.query(`INSERT INTO organizations (id, name, handle) VALUES ($1, $2, $3)`, [org, label, `o${randomBytes(4).toString('hex')}`]);
    await pool.query(`INSERT INTO memberships (org_id, principal_id, role, joined_via) VALUES ($1, $2, 'admin', 'creator')`, [org, created.body.principal_id]);
  } finally {
    await pool.end();
  }
  return created.body.api_key;
}
