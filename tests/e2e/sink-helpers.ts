import { bearer, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';

// A catalog with a table `events.clicks` to hang sinks on.

export const sinkTestSchema = { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'msg', required: false, type: 'string' }] };

export async function sinkSetup() {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'clicks', schema: sinkTestSchema }).expect(201);
  return { org, admin, member, w };
}

