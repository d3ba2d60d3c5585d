import type { Request } from 'express';
import { deviceCatalogs, type AskedLevel as DeviceLevel, type DeviceCatalogs, type OnboardDeps } from '@floe/catalogs';
import type { FloeConfig } from '@floe/config';
import type { PrismaClient } from '@floe/db';
import type { AttemptLimit } from '@floe/auth';
import { badRequest, forbidden, notFound, rateLimited, writeAudit, type Caller, type SqlClient } from '@floe/http';
import { decideDeviceLogin, deviceLoginByUserCode, type AgentRole, type AskedCatalog, type DeviceLoginRecord, type GivenCatalog } from '../store/device-logins';
import { expiresIn, keyLabelOf, statusOf } from './device-codes';
import { chosenRole, givenRole } from './device-role';

// Spec: GET /v1/auth/device/pending, POST /v1/auth/device/approve, GET
// /v1/auth/device/status — the person's half of a command-line login, a
// person's act (tokens get 403). Reading decides nothing. Approving records
// the catalogs chosen at levels capped by the approver's own (the control
// plane's levels, read through its internal route) and the role, capped by
// the approver's role (device-role.ts); the agent is made only when the
// machine collects the key.

export interface DeviceApprovalDeps extends OnboardDeps {
  /** User codes a person looked up and missed (DEVICE_CODE_MISSES_PER_HOUR). */
  deviceCodeMisses: AttemptLimit;
}

/**
 * A signed-in person may look up any pending code, so codes could be guessed
 * (20^8 of them, 15 minutes each): each lookup that finds nothing it may see
 * takes one of this many an hour from the person, and once they are spent
 * every lookup, finding or not, is 429 until the window passes.
 */
export const DEVICE_CODE_MISSES_PER_HOUR = 20;

/** The login under a user code as `caller` may look it up: 429 while their misses are spent; `visible` judges what they may see, a miss takes one. */
async function lookUp(d: DeviceApprovalDeps, caller: Caller, userCode: string, visible: (l: DeviceLoginRecord) => boolean, miss: () => Error): Promise<DeviceLoginRecord> {
  const spent = await d.deviceCodeMisses.spent(caller.principalId);
  if (spent !== null) throw tooManyMisses(d, spent);
  const l = await deviceLoginByUserCode(d.prisma, userCode);
  if (l && visible(l)) return l;
  const wait = await d.deviceCodeMisses.take(caller.principalId);
  if (wait !== null) throw tooManyMisses(d, wait);
  throw miss();
}

const tooManyMisses = (d: DeviceApprovalDeps, seconds: number) =>
  rateLimited(seconds, `more than ${d.deviceCodeMisses.points} device codes that matched nothing in an hour; check the code the machine shows and try again later`);

const RANK: Record<DeviceLevel | 'none', number> = { none: 0, read: 1, write: 2 };

/** The lower of the asked level and the one held; null when nothing is held. */
export const capped = (asked: DeviceLevel, held: DeviceLevel | 'none'): DeviceLevel | null => (held === 'none' ? null : RANK[held] < RANK[asked] ? held : asked);

function requirePerson(caller: Caller): void {
  if (caller.kind !== 'human') throw forbidden('forbidden', 'deciding a device login is a person\'s act; a token cannot do it');
}

/** A login still waiting for a decision; 404 `device_code_not_found` for an unknown, decided or expired one. */
async function pendingLogin(d: DeviceApprovalDeps, caller: Caller, userCode: string): Promise<DeviceLoginRecord> {
  // One answer whatever the reason: whether another person decided it is theirs to see (the status route).
  return lookUp(d, caller, userCode, (l) => statusOf(l) === 'pending', () => notFound('device_code_not_found', `no device login waiting for a decision has the code ${userCode}`));
}

const decidedMeanwhile = (userCode: string) => notFound('device_code_not_found', `the device login ${userCode} was decided, or expired, meanwhile`);

const refOf = (c: AskedCatalog) => ({ ref: (c.warehouse_id ?? c.name)!, level: c.level });

export async function pendingDeviceLogin(d: DeviceApprovalDeps, req: Request, caller: Caller, userCode: string, orgId: string | undefined) {
  requirePerson(caller);
  const l = await pendingLogin(d, caller, userCode);
  const cat = await deviceCatalogs(d, req, { principalId: caller.principalId, orgId, requested: l.requested.map(refOf), requestedLevel: l.requestedLevel, ensureCatalog: false });
  const asked = new Map(cat.requested.map((r) => [r.warehouse_id, r.level]));
  const requested = cat.requested.map((r) => ({ warehouse_id: r.warehouse_id, name: r.name, level: capped(r.level, r.my_level) }));
  const warehouses: Array<Record<string, unknown>> = cat.warehouses.map((w) => {
    const level = asked.get(w.warehouse_id);
    return {
      warehouse_id: w.warehouse_id, name: w.name, level: level ? capped(level, w.my_level) : null, my_level: w.my_level, my_via: w.my_via,
      capped: level ? RANK[w.my_level] < RANK[level] : false, pending: false, requested: level !== undefined,
    };
  });
  // An organisation without a catalog gets one at approval; the person will create it, so holds write on it.
  if (cat.catalog_to_create) {
    warehouses.push({ warehouse_id: null, name: cat.catalog_to_create, level: l.requestedLevel, my_level: 'write', my_via: 'creator', capped: false, pending: true, requested: true });
  }
  const levels = warehouses.map((w) => w.level as DeviceLevel | null).filter((x) => x !== null);
  return {
    ...describe(l),
    requested_level: l.requestedLevel,
    level: levels.length ? levels.reduce((a, b) => (RANK[b] > RANK[a] ? b : a)) : null,
    requested_role: l.requestedRole,
    role: givenRole(l.requestedRole, cat.organization.role).role,
    organization: cat.organization,
    warehouses,
    requested,
    expires_in: expiresIn(l),
  };
}

export interface DeviceDecision {
  userCode: string;
  deny: boolean;
  orgId?: string;
  /** The catalogs chosen, each at a level (default: the asked level); absent: what the machine asked for. */
  warehouses?: Array<Omit<AskedCatalog, 'level'> & { level?: DeviceLevel }>;
  /** The older spelling: narrows the set (ids or names), at `level` or the asked level. */
  warehouseIds?: string[];
  /** The older spelling: lowers every level to at most this. */
  level?: DeviceLevel;
  /** The agent's role: lowers the requested one; absent: the requested one. */
  role?: AgentRole;
}

export async function decideDeviceLoginAs(d: DeviceApprovalDeps, req: Request, caller: Caller, c: DeviceDecision) {
  // authorize
  requirePerson(caller);
  const l = await pendingLogin(d, caller, c.userCode);
  if (c.deny) {
    if (!(await decideDeviceLogin(d.prisma, l.id, { status: 'denied', decidedBy: caller.principalId, orgId: null, grants: null, role: null }))) throw decidedMeanwhile(c.userCode);
    await writeAudit(d.db, req, { action: 'device.deny', targetType: 'device_login', targetId: l.id, data: { client_name: l.clientName, hostname: l.hostname } });
    return { approved: false, ...decisionView(l, null), note: 'Refused: the machine is told so when it next polls.' };
  }

  // validate: the chosen set, in the newer or the older spelling
  const chosen: AskedCatalog[] = c.warehouses?.map((w) => ({ ...w, level: w.level ?? l.requestedLevel }))
    ?? c.warehouseIds?.map((ref) => ({ name: ref, level: l.requestedLevel }))
    ?? l.requested;
  if (c.warehouses?.length === 0 || c.warehouseIds?.length === 0) {
    throw badRequest('invalid_value', 'choose at least one catalog, or refuse with "deny": true', { field: c.warehouses ? 'warehouses' : 'warehouse_ids' });
  }
  const asked = chosen.map((x) => ({ ...refOf(x), level: c.level && RANK[c.level] < RANK[x.level] ? c.level : x.level }));
  const wantedRole = chosenRole(l.requestedRole, c.role);

  // act: an organisation without a catalog gets `demo_data` first; levels and the role are capped by the approver's own
  const cat = await deviceCatalogs(d, req, {
    principalId: caller.principalId, orgId: c.orgId, requested: asked, requestedLevel: c.level ?? l.requestedLevel, ensureCatalog: true, decision: 'device_login',
  });
  const grants = grantsOf(cat);
  const { role, capped: roleCapped } = givenRole(wantedRole, cat.organization.role);
  if (!(await decideDeviceLogin(d.prisma, l.id, { status: 'approved', decidedBy: caller.principalId, orgId: cat.organization.org_id, grants, role }))) {
    throw decidedMeanwhile(c.userCode);
  }
  await writeAudit(d.db, req, {
    action: 'device.approve', orgId: cat.organization.org_id, targetType: 'device_login', targetId: l.id,
    data: { client_name: l.clientName, hostname: l.hostname, grants, requested_role: l.requestedRole, role, created_catalog: cat.created_catalog?.warehouse_id ?? null },
  });
  const cappedNote = roleCapped ? ` The machine asked for an admin agent; you are a member of ${cat.organization.handle}, so the role was capped: it will be a member.` : '';
  return {
    approved: true,
    ...decisionView(l, { orgId: cat.organization.org_id, grants, role }),
    note: `Approved: the ${role} agent ${l.clientName} is made when the machine collects its key (within ${expiresIn(l)} s).${cappedNote}`,
  };
}

/** A catalog a person gives a machine or an application: the level given, the one asked, and the person's own. */
export interface GivenLevel extends GivenCatalog {
  asked: DeviceLevel;
  held: DeviceLevel | 'none';
}

/**
 * What a person gives (a device approval, an OAuth consent): each resolved
 * catalog once, at the asked level capped by their own (the highest where
 * one is asked twice); 403 on one they hold nothing on.
 */
export function givenLevels(requested: DeviceCatalogs['requested']): GivenLevel[] {
  const given = new Map<string, GivenLevel>();
  for (const r of requested) {
    const level = capped(r.level, r.my_level);
    if (!level) throw forbidden('forbidden', `you hold nothing on the catalog ${r.name}, so you cannot give it`, { warehouse_id: r.warehouse_id });
    const before = given.get(r.warehouse_id);
    if (!before || RANK[level] > RANK[before.level]) given.set(r.warehouse_id, { warehouse_id: r.warehouse_id, name: r.name, level, asked: r.level, held: r.my_level });
  }
  return [...given.values()];
}

function grantsOf(cat: DeviceCatalogs): GivenCatalog[] {
  return givenLevels(cat.requested).map(({ warehouse_id, name, level }) => ({ warehouse_id, name, level }));
}

function describe(l: DeviceLoginRecord) {
  return { user_code: l.userCode, client: l.client, hostname: l.hostname, client_name: l.clientName };
}

/** The decision's answer; `given` null when refused. */
function decisionView(l: DeviceLoginRecord, given: { orgId: string; grants: GivenCatalog[]; role: AgentRole } | null) {
  const top = given?.grants.length ? given.grants.map((g) => g.level).reduce((a, b) => (RANK[b] > RANK[a] ? b : a)) : null;
  return {
    claimed: false,
    ...describe(l),
    label: keyLabelOf(l),
    requested_level: l.requestedLevel,
    requested_role: l.requestedRole,
    connection: given ? { name: l.clientName, level: top, role: given.role, org_id: given.orgId, warehouses: given.grants } : null,
    expires_in: expiresIn(l),
  };
}

/** A pending login to any signed-in person; a decided one only to the person who decided it (404 to anyone else). */
export async function deviceLoginStatus(d: DeviceApprovalDeps, caller: Caller, userCode: string) {
  requirePerson(caller);
  const l = await lookUp(d, caller, userCode, (x) => x.decidedBy === null || x.decidedBy === caller.principalId, () => notFound('device_code_not_found', `no device login has the code ${userCode}`));
  const status = statusOf(l);
  return {
    user_code: l.userCode,
    status,
    claimed: l.status === 'used',
    client: l.client,
    hostname: l.hostname,
    client_name: l.clientName,
    expires_in: expiresIn(l),
    connection: l.grants ? { name: l.clientName, org_id: l.orgId, role: l.role ?? 'member', agent_id: l.agentId, warehouses: l.grants } : null,
  };
}
