import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';
import { newPrincipal, sql } from './helpers';

// Spec: Grants, Authentication 5–6 and error rule 1, through the gateway.

async function levelOf(apiKey: string, warehouseId: string) {
  const res = await gateway().get(`/v1/warehouses/${warehouseId}`).set(bearer(apiKey));
  return res.status === 200 ? { level: res.body.my_level, via: res.body.my_via } : { status: res.status, code: res.body.error?.code };
}

test('implicit grants, explicit grants, revocation to none, and every refusal', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const writer = await newMember(org);
  const agent = await newMember(org, 'agent');
  const stranger = await newPrincipal('human');
  const project = await newProject(admin.api_key);
  const w = await newWarehouse(admin.api_key, project.project_id);
  const grants = `/v1/warehouses/${w.warehouse_id}/grants`;

  // Implicit: admin writes via admin, people read via membership; an agent holds nothing and cannot see it.
  const listed = await gateway().get(grants).set(bearer(member.api_key));
  expect(listed.status).toBe(200);
  const byId = Object.fromEntries(listed.body.map((g: { principal_id: string }) => [g.principal_id, g]));
  expect(byId[admin.principal_id]).toMatchObject({ kind: 'human', display: admin.email, level: 'write', via: 'admin', granted_by: null });
  expect(byId[member.principal_id]).toMatchObject({ level: 'read', via: 'membership' });
  expect(byId[agent.principal_id]).toBeUndefined();
  expect(await levelOf(agent.api_key, w.warehouse_id)).toEqual({ status: 404, code: 'warehouse_not_found' });

  // A member reading what an admin may only write: 403 forbidden naming who can grant.
  const refused = await gateway().put(`${grants}/${writer.principal_id}`).set(bearer(member.api_key)).send({ level: 'read' });
  const e = expectError(refused, 403, 'forbidden');
  expect(e.can_grant).toEqual([{ principal_id: admin.principal_id, kind: 'human', display: admin.email, role: 'admin' }]);

  // The admin grants write; the writer (a person holding write) may grant up to write.
  const granted = await gateway().put(`${grants}/${writer.principal_id}`).set(bearer(admin.api_key)).send({ level: 'write' });
  expect(granted.status).toBe(200);
  expect(granted.body).toEqual({ warehouse_id: w.warehouse_id, principal_id: writer.principal_id, kind: 'human', display: writer.email, level: 'write', via: 'grant', granted_by: admin.principal_id });
  expect(await levelOf(writer.api_key, w.warehouse_id)).toEqual({ level: 'write', via: 'grant' });
  const toAgent = await gateway().put(`${grants}/${agent.principal_id}`).set(bearer(writer.api_key)).send({ level: 'read' });
  expect(toAgent.status).toBe(200);
  expect(await levelOf(agent.api_key, w.warehouse_id)).toEqual({ level: 'read', via: 'grant' });
  // A token grants only as an admin.
  expectError(await gateway().put(`${grants}/${member.principal_id}`).set(bearer(agent.api_key)).send({ level: 'read' }), 403, 'forbidden');

  // Refusals: bad level, someone outside the organisation, an admin's implicit write.
  expect(expectError(await gateway().put(`${grants}/${member.principal_id}`).set(bearer(admin.api_key)).send({ level: 'owner' }), 400, 'invalid_value').field).toBe('level');
  expectError(await gateway().put(`${grants}/${stranger.principal_id}`).set(bearer(admin.api_key)).send({ level: 'read' }), 404, 'principal_not_found');
  expect(expectError(await gateway().put(`${grants}/${admin.principal_id}`).set(bearer(admin.api_key)).send({ level: 'read' }), 409, 'implicit_grant').via).toBe('admin');
  expectError(await gateway().delete(`${grants}/${admin.principal_id}`).set(bearer(admin.api_key)), 409, 'implicit_grant');

  // Only an admin or the granter revokes; the member then falls back to membership read.
  expectError(await gateway().delete(`${grants}/${agent.principal_id}`).set(bearer(member.api_key)), 403, 'forbidden');
  const revoked = await gateway().delete(`${grants}/${agent.principal_id}`).set(bearer(writer.api_key));
  expect(revoked.status).toBe(200);
  expect(revoked.body).toMatchObject({ principal_id: agent.principal_id, revoked: { level: 'read', via: 'grant' }, level: 'none', via: null });
  expect(await levelOf(agent.api_key, w.warehouse_id)).toEqual({ status: 404, code: 'warehouse_not_found' });
  expectError(await gateway().delete(`${grants}/${agent.principal_id}`).set(bearer(admin.api_key)), 404, 'grant_not_found');
  const back = await gateway().delete(`${grants}/${writer.principal_id}`).set(bearer(admin.api_key));
  expect(back.body).toMatchObject({ revoked: { level: 'write', via: 'grant' }, level: 'read', via: 'membership' });

  // Revoking a member's implicit read records `none`; the catalog stays visible to them at level none.
  const none = await gateway().delete(`${grants}/${member.principal_id}`).set(bearer(admin.api_key));
  expect(none.body).toMatchObject({ revoked: { level: 'read', via: 'membership' }, level: 'none', via: 'grant' });
  expect(await levelOf(member.api_key, w.warehouse_id)).toEqual({ level: 'none', via: 'grant' });
  const after = await gateway().get(grants).set(bearer(admin.api_key));
  expect(after.body.find((g: { principal_id: string }) => g.principal_id === member.principal_id)).toMatchObject({ level: 'none', via: 'grant', granted_by: admin.principal_id });
  // With none, even a read route refuses with can_grant.
  expectError(await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(bearer(member.api_key)), 403, 'forbidden');
}, 60_000);

test('the creator holds write via creator; an admin token sees every catalog', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const adminToken = await newMember(org, 'agent', 'admin');
  const project = await newProject(admin.api_key);
  const w = await newWarehouse(member.api_key, project.project_id);
  expect(await levelOf(member.api_key, w.warehouse_id)).toEqual({ level: 'write', via: 'creator' });
  expect(await levelOf(adminToken.api_key, w.warehouse_id)).toEqual({ level: 'write', via: 'admin' });
  expect(await levelOf(admin.api_key, w.warehouse_id)).toEqual({ level: 'write', via: 'admin' });
  expectError(await gateway().delete(`/v1/warehouses/${w.warehouse_id}/grants/${member.principal_id}`).set(bearer(admin.api_key)), 409, 'implicit_grant');
}, 60_000);

test('a grant and a revocation commit with their audit events: there as soon as the answer is, written by the same transaction', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const project = await newProject(admin.api_key);
  const w = await newWarehouse(admin.api_key, project.project_id);
  const grants = `/v1/warehouses/${w.warehouse_id}/grants`;
  // xmin: the id of the transaction that wrote a row (the act's row and its event share it only when they commit together).
  const grantRow = async () => (await sql(`SELECT xmin::text AS tx FROM warehouse_grants WHERE warehouse_id = $1 AND principal_id = $2`, [w.warehouse_id, member.principal_id]))[0];
  const events = (action: string) => sql(
    `SELECT xmin::text AS tx, actor_id, actor_kind, org_id, target_type, target_id, request_id, data FROM audit_events WHERE action = $1 AND target_id = $2 ORDER BY id`,
    [action, w.warehouse_id],
  );

  // A refused grant writes neither the grant nor an event.
  expectError(await gateway().put(`${grants}/${member.principal_id}`).set(bearer(member.api_key)).send({ level: 'write' }), 403, 'forbidden');
  expect(await events('warehouse.grant')).toEqual([]);

  // Read right after the answer, with no waiting.
  const granted = await gateway().put(`${grants}/${member.principal_id}`).set(bearer(admin.api_key)).send({ level: 'write' });
  expect(granted.status).toBe(200);
  const [grant] = await events('warehouse.grant');
  expect(grant).toEqual({
    tx: (await grantRow()).tx, actor_id: admin.principal_id, actor_kind: 'human', org_id: org.org_id, target_type: 'warehouse', target_id: w.warehouse_id,
    request_id: granted.headers['x-request-id'], data: { principal_id: member.principal_id, level: 'write', previous: { level: 'read', via: 'membership' } },
  });

  // Revoking the explicit grant and then the member's implicit read (recorded as `none`, the row the second revocation writes).
  const back = await gateway().delete(`${grants}/${member.principal_id}`).set(bearer(admin.api_key));
  expect(back.status).toBe(200);
  const none = await gateway().delete(`${grants}/${member.principal_id}`).set(bearer(admin.api_key));
  expect(none.status).toBe(200);
  const revokes = await events('warehouse.grant_revoke');
  expect(revokes).toHaveLength(2);
  expect(revokes[0]).toMatchObject({
    actor_id: admin.principal_id, org_id: org.org_id, request_id: back.headers['x-request-id'],
    data: { principal_id: member.principal_id, revoked: { level: 'write', via: 'grant' }, level: 'read' },
  });
  expect(revokes[1]).toEqual({
    tx: (await grantRow()).tx, actor_id: admin.principal_id, actor_kind: 'human', org_id: org.org_id, target_type: 'warehouse', target_id: w.warehouse_id,
    request_id: none.headers['x-request-id'], data: { principal_id: member.principal_id, revoked: { level: 'read', via: 'membership' }, level: 'none' },
  });
  expect(revokes[0].tx).not.toBe(revokes[1].tx);
}, 60_000);
