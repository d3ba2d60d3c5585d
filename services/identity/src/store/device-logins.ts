import type { Db, Prisma } from '@floe/db';

// Device logins (command-line login): one row per start, found by the device
// code's hash (the machine) or by the user code (the person). Every change of
// state is one conditional statement, so concurrent polls and approvals each
// see the row as the one before them left it.

export type StoredStatus = 'pending' | 'approved' | 'denied' | 'used';
export type GrantLevel = 'read' | 'write';
export type AgentRole = 'admin' | 'member';

/** A catalog as the machine asked for it (unresolved) or as the approver gave it. */
export interface AskedCatalog {
  warehouse_id?: string;
  name?: string;
  level: GrantLevel;
}

export interface GivenCatalog {
  warehouse_id: string;
  name: string;
  level: GrantLevel;
}

export interface DeviceLoginRecord {
  id: string;
  userCode: string;
  client: string;
  hostname: string | null;
  clientName: string;
  requestedLevel: GrantLevel;
  requested: AskedCatalog[];
  requestedRole: AgentRole;
  status: StoredStatus;
  intervalSeconds: number;
  expiresAt: Date;
  decidedBy: string | null;
  orgId: string | null;
  grants: GivenCatalog[] | null;
  /** The role approval gave; null until approved (and on logins approved before roles were asked: those made members). */
  role: AgentRole | null;
  claimedAt: Date | null;
  agentId: string | null;
  keyId: string | null;
}

const record = {
  id: true, userCode: true, client: true, hostname: true, clientName: true, requestedLevel: true, requested: true, requestedRole: true, status: true,
  intervalSeconds: true, expiresAt: true, decidedBy: true, orgId: true, grants: true, role: true, claimedAt: true, agentId: true, keyId: true,
} as const;

type Row = Prisma.DeviceLoginGetPayload<{ select: typeof record }>;

const toRecord = (r: Row): DeviceLoginRecord => ({
  ...r,
  requestedLevel: r.requestedLevel as GrantLevel,
  requested: r.requested as unknown as AskedCatalog[],
  requestedRole: r.requestedRole as AgentRole,
  status: r.status as StoredStatus,
  grants: r.grants as unknown as GivenCatalog[] | null,
  role: r.role as AgentRole | null,
});

/** A start as it is stored: the record's first state, with the device code's hash and the caller's address. */
export type NewDeviceLogin = Pick<DeviceLoginRecord, 'id' | 'userCode' | 'client' | 'hostname' | 'clientName' | 'requestedLevel' | 'requested' | 'requestedRole' | 'intervalSeconds' | 'expiresAt'> & {
  deviceCodeHash: string;
  createdIp: string | null;
};

/** Inserts a start; false (nothing written) when the user code is taken. */
export async function insertDeviceLogin(db: Db, n: NewDeviceLogin): Promise<boolean> {
  // ON CONFLICT DO NOTHING: a taken user code is an answer (draw another), not an error.
  const { count } = await db.deviceLogin.createMany({ data: [{ ...n, requested: n.requested as unknown as Prisma.InputJsonArray }], skipDuplicates: true });
  return count === 1;
}

export async function deviceLoginByCodeHash(db: Db, deviceCodeHash: string): Promise<DeviceLoginRecord | null> {
  const r = await db.deviceLogin.findUnique({ where: { deviceCodeHash }, select: record });
  return r ? toRecord(r) : null;
}

export async function deviceLoginByUserCode(db: Db, userCode: string): Promise<DeviceLoginRecord | null> {
  const r = await db.deviceLogin.findUnique({ where: { userCode }, select: record });
  return r ? toRecord(r) : null;
}

/**
 * Records a poll of a pending login: whether it came sooner than the
 * interval after the one before (then the interval grows by `step`), and the
 * interval now. Null when the row is no longer pending.
 */
export async function stampPoll(db: Db, id: string, step: number): Promise<{ tooSoon: boolean; intervalSeconds: number } | null> {
  // Raw: one statement reads the previous poll under the row lock and stamps this one, so concurrent polls are judged one after another.
  const rows = await db.$queryRaw<Array<{ too_soon: boolean; interval_seconds: number }>>`
    UPDATE device_logins d
       SET interval_seconds = CASE WHEN old.too_soon THEN old.interval_seconds + ${step}::int ELSE old.interval_seconds END,
           last_polled_at = clock_timestamp()
      FROM (SELECT id, interval_seconds,
                   COALESCE(last_polled_at > clock_timestamp() - make_interval(secs => interval_seconds), false) AS too_soon
              FROM device_logins WHERE id = ${id} AND status = 'pending' FOR UPDATE) old
     WHERE d.id = old.id
     RETURNING old.too_soon, d.interval_seconds`;
  return rows[0] ? { tooSoon: rows[0].too_soon, intervalSeconds: rows[0].interval_seconds } : null;
}

/** Moves a pending, unexpired login to `approved` (with its grants and role) or `denied`; false when it was not pending any more. */
export async function decideDeviceLogin(
  db: Db, id: string, d: { status: 'approved' | 'denied'; decidedBy: string; orgId: string | null; grants: GivenCatalog[] | null; role: AgentRole | null },
): Promise<boolean> {
  const { count } = await db.deviceLogin.updateMany({
    where: { id, status: 'pending', expiresAt: { gt: new Date() } },
    data: {
      status: d.status, decidedBy: d.decidedBy, decidedAt: new Date(), orgId: d.orgId, role: d.role,
      grants: (d.grants ?? undefined) as unknown as Prisma.InputJsonArray | undefined,
    },
  });
  return count === 1;
}

/**
 * Claims an approved, unexpired login for the poll collecting it (status
 * `used`): true for exactly one of any number of concurrent polls. A claim
 * older than `leaseCutoff` whose agent was never recorded (its poller died)
 * may be taken again.
 */
export async function claimDeviceLogin(db: Db, id: string, leaseCutoff: Date): Promise<boolean> {
  const { count } = await db.deviceLogin.updateMany({
    where: {
      id,
      expiresAt: { gt: new Date() },
      OR: [{ status: 'approved' }, { status: 'used', agentId: null, claimedAt: { lt: leaseCutoff } }],
    },
    data: { status: 'used', claimedAt: new Date() },
  });
  return count === 1;
}

/** The agent and key the claiming poll made. */
export async function recordCollected(db: Db, id: string, agentId: string, keyId: string): Promise<boolean> {
  const { count } = await db.deviceLogin.updateMany({ where: { id, agentId: null }, data: { agentId, keyId } });
  return count === 1;
}

/** Gives a claim back (the agent could not be made), so the next poll tries again. */
export async function releaseClaim(db: Db, id: string): Promise<void> {
  await db.deviceLogin.updateMany({ where: { id, status: 'used', agentId: null }, data: { status: 'approved', claimedAt: null } });
}
