import { throwawayDatabase } from '../../../../tests/support/throwaway-db';
import { pruneOAuth } from './oauth-prune';

// Against the real Postgres: a throwaway database with the real migrations.
const db = throwawayDatabase('oauth_prune');
const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

async function registration(id: string, createdDaysAgo: number, usedDaysAgo: number | null): Promise<void> {
  await db.pool().query(`INSERT INTO oauth_clients (id, metadata, created_at, last_used_at) VALUES ($1, '{}', $2, $3)`, [id, ago(createdDaysAgo), usedDaysAgo === null ? null : ago(usedDaysAgo)]);
}

async function family(id: string, clientId: string, expiresInDays: number, revokedDaysAgo: number | null = null): Promise<void> {
  await db.pool().query(
    `INSERT INTO oauth_grants (id, code_hash, client_id, agent_id, person_id, org_id, resource, scope, refresh_hash, expires_at, revoked_at)
     VALUES ($1, $1, $2, 'p_a', 'p_p', 'org_x', 'https://x/mcp', 'catalogs:read', 'h', $3, $4)`,
    [id, clientId, new Date(Date.now() + expiresInDays * DAY), revokedDaysAgo === null ? null : ago(revokedDaysAgo)]);
}

async function session(id: string, expiresInDays: number, revokedDaysAgo: number | null = null): Promise<void> {
  await db.pool().query(
    `INSERT INTO sessions (id, principal_id, refresh_hash, expires_at, revoked_at) VALUES ($1, 'p_p', 'h', $2, $3)`,
    [id, new Date(Date.now() + expiresInDays * DAY), revokedDaysAgo === null ? null : ago(revokedDaysAgo)]);
}

async function retired(hash: string, owner: { session: string } | { family: string }): Promise<void> {
  await db.pool().query(`INSERT INTO retired_refresh_hashes (hash, session_id, family_id) VALUES ($1, $2, $3)`,
    [hash, 'session' in owner ? owner.session : null, 'family' in owner ? owner.family : null]);
}

const ids = async (table: string, column = 'id') => (await db.pool().query(`SELECT ${column} AS id FROM ${table} ORDER BY 1`)).rows.map((r) => r.id);

test('unused registrations go after 90 days; used, recent, metadata-document and still-refreshing ones stay; dead codes, requests, families and dead sessions\' retired refresh hashes after 30', async () => {
  await registration('dcr_old_unused', 120, null);
  await registration('dcr_old_used_long_ago', 200, 91);
  await registration('dcr_old_used_lately', 200, 10);
  await registration('dcr_recent', 30, null);
  await registration('dcr_old_but_refreshing', 150, null);
  await family('ogr_live', 'dcr_old_but_refreshing', 20);
  // The pattern must not read `_` as a wildcard: `dcrx...` is not a registration.
  await registration('dcrxold', 120, null);
  await registration('https://tool.example.com/client.json', 365, null);

  await family('ogr_expired_long_ago', 'https://c', -31);
  await family('ogr_revoked_long_ago', 'https://c', 10, 31);
  await family('ogr_revoked_lately', 'https://c', 10, 2);
  await db.pool().query(
    `INSERT INTO oauth_codes (code_hash, request_id, client_id, redirect_uri, code_challenge, resource, scope, agent_id, person_id, org_id, expires_at)
     VALUES ('c_dead', 'oar_1', 'c', 'r', 'x', 'x', 's', 'a', 'p', 'o', $1), ('c_recent', 'oar_2', 'c', 'r', 'x', 'x', 's', 'a', 'p', 'o', $2)`,
    [ago(31), ago(1)]);
  await db.pool().query(
    `INSERT INTO oauth_requests (id, client_id, client, redirect_uri, code_challenge, resource, scope, expires_at)
     VALUES ('oar_1', 'c', '{}', 'r', 'x', 'x', 's', $1), ('oar_2', 'c', '{}', 'r', 'x', 'x', 's', $2)`,
    [ago(31), ago(1)]);

  // Retired refresh hashes: a live or lately dead owner's stay; a family's go with it, a session's 30 days after it died.
  await session('ses_live', 20);
  await session('ses_revoked_lately', 20, 2);
  await session('ses_revoked_long_ago', 20, 31);
  await session('ses_expired_long_ago', -31);
  for (const [hash, owner] of <Array<[string, { session: string } | { family: string }]>>[
    ['r_ses_live', { session: 'ses_live' }], ['r_ses_revoked_lately', { session: 'ses_revoked_lately' }],
    ['r_ses_revoked_long_ago', { session: 'ses_revoked_long_ago' }], ['r_ses_expired_long_ago', { session: 'ses_expired_long_ago' }],
    ['r_ogr_live', { family: 'ogr_live' }], ['r_ogr_revoked_long_ago', { family: 'ogr_revoked_long_ago' }],
  ]) await retired(hash, owner);

  expect(await pruneOAuth(db.prisma())).toEqual({ registrations: 2, requests: 1, codes: 1, families: 2, sessionRefreshHashes: 2 });
  expect(await ids('oauth_clients')).toEqual(['dcr_old_but_refreshing', 'dcr_old_used_lately', 'dcr_recent', 'dcrxold', 'https://tool.example.com/client.json']);
  expect(await ids('oauth_grants')).toEqual(['ogr_live', 'ogr_revoked_lately']);
  expect(await ids('oauth_codes', 'code_hash')).toEqual(['c_recent']);
  expect(await ids('oauth_requests')).toEqual(['oar_2']);
  expect(await ids('retired_refresh_hashes', 'hash')).toEqual(['r_ogr_live', 'r_ses_live', 'r_ses_revoked_lately']);
  // A second pass finds nothing.
  expect(await pruneOAuth(db.prisma())).toEqual({ registrations: 0, requests: 0, codes: 0, families: 0, sessionRefreshHashes: 0 });
}, 30_000);
