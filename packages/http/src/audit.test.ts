import type { Request } from 'express';
import { throwawayDatabase } from '../../../tests/support/throwaway-db';
import { writeAudit, writeAuditIn } from './audit';

// Both audit writers, against the real Postgres (a throwaway database with the
// real migrations): one row shape, the OAuth actor fields kept, and the
// transaction's writer committing or rolling back with the act.
const db = throwawayDatabase('audit');

/** A request made through an OAuth access token: the token record acts for the person who consented. */
const viaOAuth = {
  requestId: 'req_1', ip: '203.0.113.9',
  caller: { principalId: 'p_record', kind: 'mcp', email: null, via: 'jwt', keyId: null, sessionId: null, oauth: { personId: 'p_person', clientId: 'oc_1', scopes: ['catalogs:read'] } },
} as unknown as Request;

const rows = async (action: string) => (await db.pool().query(
  `SELECT actor_id, actor_kind, org_id, target_type, target_id, request_id, ip, data FROM audit_events WHERE action = $1 ORDER BY id`, [action])).rows;

test('over the pool and in a transaction, one row shape with the OAuth actor fields', async () => {
  const event = { orgId: 'org_1', targetType: 'agent', targetId: 'p_new', data: { name: 'cli' } };
  await writeAudit(db.pool(), viaOAuth, { action: 'test.pool', ...event });
  await db.prisma().$transaction((tx) => writeAuditIn(tx, viaOAuth, { action: 'test.tx', ...event }));
  const expected = {
    actor_id: 'p_record', actor_kind: 'mcp', org_id: 'org_1', target_type: 'agent', target_id: 'p_new', request_id: 'req_1', ip: '203.0.113.9',
    data: { name: 'cli', on_behalf_of: 'p_person', oauth_client_id: 'oc_1' },
  };
  expect(await rows('test.pool')).toEqual([expected]);
  expect(await rows('test.tx')).toEqual([expected]);
});

test('an event written in a transaction that rolls back is not there: act and audit stand or fall together', async () => {
  await expect(db.prisma().$transaction(async (tx) => {
    await writeAuditIn(tx, null, { action: 'test.rolled_back', actorId: 'p_a', actorKind: 'human', data: {} });
    throw new Error('the act failed');
  })).rejects.toThrow('the act failed');
  expect(await rows('test.rolled_back')).toEqual([]);
});
