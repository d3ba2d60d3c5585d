import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';

// Spec: GET /v1/audit — own events, an admin sees the organisation's, filters.

test('events carry actor, target and request id; visibility and filters follow the spec', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const created = await gateway().post('/v1/projects').set(bearer(admin.api_key)).send({ name: 'audited' });
  expect(created.status).toBe(201);
  const w = await newWarehouse(admin.api_key, created.body.project_id);
  const memberProject = await newProject(member.api_key);

  const own = await gateway().get('/v1/audit').set(bearer(admin.api_key));
  expect(own.status).toBe(200);
  const projectEvent = own.body.events.find((e: { action: string; target_id: string }) => e.action === 'project.create' && e.target_id === created.body.project_id);
  expect(projectEvent).toMatchObject({ actor_id: admin.principal_id, actor_kind: 'human', org_id: org.org_id, target_type: 'project', request_id: created.headers['x-request-id'] });
  expect(own.body.events.map((e: { action: string }) => e.action)).not.toContain(undefined);
  expect(own.body.events.some((e: { actor_id: string }) => e.actor_id === member.principal_id)).toBe(false);
  // The default is one's own events (the spec); an admin is told which organisation's they can ask for.
  expect(own.body).toMatchObject({ scope: 'own', org_id: null, admin_of: [{ org_id: org.org_id, handle: org.handle }] });
  expect(own.body.note).toContain(`?org_id=${org.org_id}`);

  // An admin with org_id sees the member's events too; the member sees only their own.
  const orgWide = await gateway().get('/v1/audit').query({ org_id: org.org_id }).set(bearer(admin.api_key));
  expect(orgWide.body.events.some((e: { target_id: string }) => e.target_id === memberProject.project_id)).toBe(true);
  const memberView = await gateway().get('/v1/audit').query({ org_id: org.org_id }).set(bearer(member.api_key));
  expect(memberView.body.events.every((e: { actor_id: string }) => e.actor_id === member.principal_id)).toBe(true);
  expect(orgWide.body).toMatchObject({ scope: 'organisation', org_id: org.org_id });
  expect(orgWide.body).not.toHaveProperty('admin_of');
  expect(memberView.body).toMatchObject({ scope: 'own', org_id: org.org_id });
  const memberOwn = await gateway().get('/v1/audit').set(bearer(member.api_key));
  expect(memberOwn.body.scope).toBe('own');
  expect(memberOwn.body).not.toHaveProperty('admin_of');

  // Filters: action prefix, exact action, since, limit.
  const warehouses = await gateway().get('/v1/audit').query({ action: 'warehouse.*' }).set(bearer(admin.api_key));
  expect(warehouses.body.events.map((e: { action: string; target_id: string }) => [e.action, e.target_id])).toEqual([['warehouse.create', w.warehouse_id]]);
  const exact = await gateway().get('/v1/audit').query({ action: 'project.create', limit: 1 }).set(bearer(admin.api_key));
  expect(exact.body).toMatchObject({ count: 1, limit: 1 });
  const future = await gateway().get('/v1/audit').query({ since: new Date(Date.now() + 60_000).toISOString() }).set(bearer(admin.api_key));
  expect(future.body.events).toEqual([]);
  const recent = await gateway().get('/v1/audit').query({ since: '30m' }).set(bearer(admin.api_key));
  expect(recent.body.count).toBeGreaterThanOrEqual(2);

  expect(expectError(await gateway().get('/v1/audit').query({ since: 'yesterday' }).set(bearer(admin.api_key)), 400, 'invalid_value').field).toBe('since');
  expect(expectError(await gateway().get('/v1/audit').query({ limit: 0 }).set(bearer(admin.api_key)), 400, 'invalid_value').field).toBe('limit');
  expectError(await gateway().get('/v1/audit').query({ org_id: 'org_nope' }).set(bearer(admin.api_key)), 404, 'org_not_found');
}, 60_000);
