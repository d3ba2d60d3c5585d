import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { makeApprovedAgent, type AgentDeps } from '@floe/accounts';
import type { AttemptLimit } from '@floe/auth';
import type { FloeConfig } from '@floe/config';
import type { PrismaClient } from '@floe/db';
import { HttpError, rateLimited, type SqlClient } from '@floe/http';
import {
  claimDeviceLogin, deviceLoginByCodeHash, insertDeviceLogin, recordCollected, releaseClaim, stampPoll, type AgentRole, type AskedCatalog, type DeviceLoginRecord, type GrantLevel,
} from '../store/device-logins';
import {
  AGENT_NAME_MAX, DEVICE_CODE_SECONDS, POLL_INTERVAL_SECONDS, SLOW_DOWN_STEP_SECONDS, deviceCodeHash, keyLabelOf, newDeviceCode, newUserCode, statusOf,
} from './device-codes';

// Spec: POST /v1/auth/device and POST /v1/auth/device/token — the machine's
// half of a command-line login. The start makes the codes (60 starts an hour
// per caller address); the poll answers the RFC 8628 refusals in the usual
// envelope until a person decided, and once approved makes the agent and its
// key: exactly once, however many polls arrive together (the row is claimed
// by one conditional update; the rest are told to keep polling, then that the
// key was collected). The agent, its key, membership and grants and the
// login's collection are one transaction: a poll that dies before it commits
// leaves nothing but its claim, which the next poll takes once it is stale.

/** How long a poll's claim stands before a poll may take it again (its poller died): longer than making the agent may take. */
const CLAIM_LEASE_SECONDS = 120;

export interface DeviceStartDeps {
  prisma: PrismaClient;
  deviceStarts: AttemptLimit;
  config: Pick<FloeConfig, 'baseUrl'>;
}

export interface DeviceStart {
  client: string;
  hostname: string | null;
  clientName: string | null;
  requestedLevel: GrantLevel;
  /** The agent's role asked for: `admin` is given only by an admin of the organisation. */
  requestedRole: AgentRole;
  /** Catalogs by id or name, each at its level; empty: the organisation's default catalog. */
  warehouses: AskedCatalog[];
}

export async function startDeviceLogin(d: DeviceStartDeps, ip: string, s: DeviceStart) {
  const wait = await d.deviceStarts.take(ip);
  if (wait !== null) throw rateLimited(wait, `at most ${d.deviceStarts.points} device logins an hour from one address`);
  const deviceCode = newDeviceCode();
  const clientName = (s.clientName ?? s.hostname ?? s.client).slice(0, AGENT_NAME_MAX);
  const row = {
    id: `dl_${randomBytes(12).toString('hex')}`, deviceCodeHash: deviceCodeHash(deviceCode), client: s.client, hostname: s.hostname, clientName,
    requestedLevel: s.requestedLevel, requested: s.warehouses, requestedRole: s.requestedRole, intervalSeconds: POLL_INTERVAL_SECONDS,
    expiresAt: new Date(Date.now() + DEVICE_CODE_SECONDS * 1000), createdIp: ip,
  };
  // 20^8 codes: a taken one is drawn again, a few times at most.
  let userCode = '';
  for (let attempt = 0; attempt < 5 && !userCode; attempt++) {
    const candidate = newUserCode();
    if (await insertDeviceLogin(d.prisma, { ...row, userCode: candidate })) userCode = candidate;
  }
  if (!userCode) throw new Error('no free user code after 5 draws');
  const verificationUri = `${d.config.baseUrl}/app/device`;
  return {
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: verificationUri,
    verification_uri_complete: `${verificationUri}?user_code=${userCode}`,
    expires_in: DEVICE_CODE_SECONDS,
    interval: POLL_INTERVAL_SECONDS,
    client_name: clientName,
    requested_level: s.requestedLevel,
    requested_role: s.requestedRole,
    warehouse_ids: s.warehouses.map((w) => w.warehouse_id ?? w.name),
    warehouses: s.warehouses,
  };
}

export type DevicePollDeps = AgentDeps & { db: SqlClient };

/** The poll's refusals (spec: device token): 400 in the usual envelope, RFC 8628's codes. */
const refusal = (code: 'authorization_pending' | 'slow_down' | 'expired_token' | 'access_denied' | 'invalid_grant', message: string, extras = {}) =>
  new HttpError(400, code, message, extras);

export async function pollDeviceLogin(d: DevicePollDeps, req: Request, deviceCode: string): Promise<CollectedKey> {
  const hash = deviceCodeHash(deviceCode);
  // A row that moved between the read and a conditional write (decided, claimed by another poll) is read again and judged as it is now.
  for (let attempt = 0; attempt < 3; attempt++) {
    const l = await deviceLoginByCodeHash(d.prisma, hash);
    if (!l) throw refusal('invalid_grant', 'no device login has this device code; start again with POST /v1/auth/device');
    const key = await judge(d, req, l);
    if (key) return key;
  }
  throw refusal('authorization_pending', 'the login is changing state; poll again', { interval: POLL_INTERVAL_SECONDS });
}

/** The key, or null when the row moved under this poll; every other outcome is thrown. */
async function judge(d: DevicePollDeps, req: Request, l: DeviceLoginRecord): Promise<CollectedKey | null> {
  switch (statusOf(l)) {
    case 'denied':
      throw refusal('access_denied', 'the person refused this login');
    case 'expired':
      throw refusal('expired_token', 'the device code has expired; start again with POST /v1/auth/device');
    case 'used': {
      if (l.agentId) throw refusal('invalid_grant', 'the key of this login was collected already; start again with POST /v1/auth/device');
      const stale = l.claimedAt !== null && l.claimedAt.getTime() < Date.now() - CLAIM_LEASE_SECONDS * 1000;
      if (!stale) throw refusal('authorization_pending', 'another poll is collecting the key; poll again', { interval: l.intervalSeconds });
      if (l.expiresAt.getTime() <= Date.now()) throw refusal('expired_token', 'the device code has expired; start again with POST /v1/auth/device');
      return collect(d, req, l);
    }
    case 'approved':
      return collect(d, req, l);
    case 'pending': {
      const poll = await stampPoll(d.prisma, l.id, SLOW_DOWN_STEP_SECONDS);
      if (!poll) return null;
      if (poll.tooSoon) {
        throw refusal('slow_down', `polled sooner than the interval after the last poll; wait ${poll.intervalSeconds} s between polls from now on`, { interval: poll.intervalSeconds });
      }
      throw refusal('authorization_pending', 'waiting for a person to approve at the verification address; keep polling', { interval: poll.intervalSeconds });
    }
  }
}

export interface CollectedKey {
  api_key: string;
  key_id: string;
  label: string;
  principal_id: string;
  kind: 'agent';
  token_type: 'api_key';
  connection: Record<string, unknown>;
  note: string;
}

/**
 * Claims the approved login for this poll and makes the agent now — its
 * principal, key, membership and grants, and the login recorded as collected,
 * in one transaction (packages/accounts); null when another poll claimed it
 * first.
 */
async function collect(d: DevicePollDeps, req: Request, l: DeviceLoginRecord): Promise<CollectedKey | null> {
  if (!(await claimDeviceLogin(d.prisma, l.id, new Date(Date.now() - CLAIM_LEASE_SECONDS * 1000)))) return null;
  let agent;
  try {
    agent = await makeApprovedAgent(d, req, {
      // A login approved before roles were asked has none stored: it was approved for a member.
      orgId: l.orgId!, name: l.clientName, label: keyLabelOf(l), approverId: l.decidedBy!, role: l.role ?? 'member',
      grants: (l.grants ?? []).map((g) => ({ warehouse_id: g.warehouse_id, level: g.level })), via: 'device',
      sourceRef: `device_login:${l.id}`,
      // A poll whose stale claim was taken over and that then finishes anyway finds the login collected: its agent is rolled back.
      alongside: async (tx, made) => {
        if (!(await recordCollected(tx, l.id, made.agentId, made.keyId!))) throw refusal('invalid_grant', 'the key of this login was collected already; start again with POST /v1/auth/device');
      },
    });
  } catch (err) {
    // Nothing was made: the next poll tries again.
    await releaseClaim(d.prisma, l.id);
    throw err;
  }
  return {
    api_key: agent.api_key!,
    key_id: agent.key_id!,
    label: agent.label,
    principal_id: agent.agent_id,
    kind: 'agent',
    token_type: 'api_key',
    connection: agent.connection,
    note: 'This is the agent\'s own key, shown once; Floe keeps only a hash. Revoking the agent revokes this connection.',
  };
}
