import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import type { Db, Prisma, PrismaClient } from '@floe/db';
import { badRequest, conflict, limitExceeded, writeAuditIn } from '@floe/http';
import { activatePendingOrganization, deletePendingOrganization, extendReservation, insertPendingOrganization, liveReservationsFrom, lockReservationsFrom, organizationByHandle, removeLapsedReservation, removePerson, standingIn, takenHandles } from '../organization-records';
import { handleCandidates, handleFrom, handleProblem } from './handles';

// Organisations as sign-up makes them: a handle looked up, a pending
// organisation reserving its handle for the person signing up (`org.reserve`),
// and its activation once the person proves the address (`org.activate`).
// Each event is written in the transaction of its act: a reservation or an
// activation stands with its event or not at all.
//
// A reservation is held as long as the code or link that completes it lives
// (identity says how long), then lapses: its handle is free for the next
// sign-up that asks. One caller address holds at most
// FLOE_PENDING_HANDLES_PER_CALLER (3) unlapsed reservations at a time — a
// count limit (409 `limit_exceeded`, not a rate: it frees itself as
// reservations are activated or lapse) kept under the address's advisory
// lock, so twenty at once cannot pass it.

export const HANDLE_PATTERN = '^[a-z0-9]$|^[a-z0-9](?:[a-z0-9]|-(?!-)){1,38}[a-z0-9]$';

/** A free handle near `base`: `base-2`, `base-3`, … or a random suffix. */
export async function freeHandle(prisma: PrismaClient, base: string): Promise<string> {
  const candidates = handleCandidates(handleFrom(base)).slice(1);
  const taken = await takenHandles(prisma, candidates);
  return candidates.find((c) => !taken.has(c)) ?? `${handleFrom(base).slice(0, 30)}-${randomBytes(3).toString('hex')}`;
}

/** Whether an organisation holds its handle now: active, or a pending reservation that has not lapsed. */
const holdsHandle = (o: { status: string; reservedUntil: Date | null }, now: Date): boolean =>
  o.status !== 'pending' || o.reservedUntil === null || o.reservedUntil > now;

/** GET /v1/handles/{handle}: whether the handle is valid and free, and one to use instead when it is not. */
export async function lookUpHandle(prisma: PrismaClient, handle: string) {
  const reason = handleProblem(handle);
  const holder = reason ? null : await organizationByHandle(prisma, handle);
  const taken = holder !== null && holdsHandle(holder, new Date());
  const available = reason === null && !taken;
  return {
    handle,
    valid: reason === null,
    available,
    reason: reason ?? (taken ? 'taken' : null),
    suggestion: available ? null : await freeHandle(prisma, handle),
    pattern: HANDLE_PATTERN,
    note: 'One character, or 3-40 lowercase letters, digits and dashes, starting and ending with a letter or digit, never two dashes in a row; some words are reserved.',
  };
}

export interface ReservedOrganization {
  org_id: string;
  name: string;
  handle: string;
  status: 'pending';
  /** False when the person had reserved it already (a sign-up started again). */
  created: boolean;
  /** A lapsed reservation of someone else's that held the handle and was removed for this one. */
  reclaimed: string | null;
}

export interface ReservationAsk {
  name: string;
  handle?: string;
  principalId: string;
  /** The caller address of the sign-up, as the gateway proved it to identity. */
  clientAddress: string;
  /** How long the reservation holds: the life of the code or link that completes it. */
  holdSeconds: number;
}

/**
 * A pending organisation holding its handle for the person signing up
 * (`principalId`, chosen at the start of the sign-up) for `holdSeconds`.
 * Asking again for the same person answers the same reservation, held
 * longer. 400 `invalid_value` (with `reason` and `suggestion`) for a handle
 * the grammar refuses, 409 `limit_exceeded` when the caller's address holds
 * `perCaller` unlapsed reservations already, 409 `handle_taken` (with
 * `suggestion`) for one somebody holds. `made` runs in the reservation's
 * transaction when it made a new one (its audit event).
 */
export async function reserveOrganization(
  prisma: PrismaClient, r: ReservationAsk, perCaller: number, made?: (tx: Prisma.TransactionClient, org: ReservedOrganization) => Promise<void>,
): Promise<ReservedOrganization> {
  const handle = r.handle ?? handleFrom(r.name);
  const problem = handleProblem(handle);
  if (problem) {
    throw badRequest('invalid_value', `${handle} is not a valid handle`, { field: 'handle', reason: problem === 'double_dash' ? 'invalid' : problem, suggestion: await freeHandle(prisma, handle) });
  }
  type Outcome = { org: ReservedOrganization } | { limit: number } | { taken: true };
  const outcome = await prisma.$transaction(async (tx): Promise<Outcome> => {
    const now = new Date();
    const until = new Date(now.getTime() + r.holdSeconds * 1000);
    await lockReservationsFrom(tx, r.clientAddress);
    // the person's own reservation: held longer, counted once
    const holder = await organizationByHandle(tx, handle);
    if (holder?.status === 'pending' && holder.createdBy === r.principalId) {
      await extendReservation(tx, holder.id, until);
      return { org: { org_id: holder.id, name: holder.name, handle: holder.handle, status: 'pending', created: false, reclaimed: null } };
    }
    // the address's count, under its lock
    const current = await liveReservationsFrom(tx, r.clientAddress, now);
    if (current >= perCaller) return { limit: current };
    // the handle: free, or held by a reservation that lapsed
    let reclaimed: string | null = null;
    if (holder) {
      if (holdsHandle(holder, now) || !(await removeLapsedReservation(tx, holder.id, now))) return { taken: true };
      reclaimed = holder.id;
    }
    const id = `org_${randomBytes(12).toString('hex')}`;
    if (!(await insertPendingOrganization(tx, { id, name: r.name, handle, createdBy: r.principalId, reservedFrom: r.clientAddress, reservedUntil: until }))) {
      return { taken: true };
    }
    const org: ReservedOrganization = { org_id: id, name: r.name, handle, status: 'pending', created: true, reclaimed };
    await made?.(tx, org);
    return { org };
  }, { maxWait: 10_000, timeout: 15_000 });
  if ('org' in outcome) return outcome.org;
  if ('limit' in outcome) {
    throw limitExceeded(`at most ${perCaller} organisations may wait for their sign-up to finish from one address; finish one (the code or link that was mailed), or wait for one to lapse`, {
      limit: 'pending_handles_per_address', limit_value: perCaller, current: outcome.limit,
    });
  }
  throw conflict('handle_taken', `the handle ${handle} is taken`, { field: 'handle', suggestion: await freeHandle(prisma, handle) });
}

/** A sign-up start's reservation (identity's sign-ups), audited `org.reserve` in its transaction when it made one. */
export function reserveForSignup(d: { prisma: PrismaClient; config: { pendingHandlesPerCaller: number } }, req: Request, r: ReservationAsk): Promise<ReservedOrganization> {
  return reserveOrganization(d.prisma, r, d.config.pendingHandlesPerCaller, (tx, org) => writeAuditIn(tx, req, {
    action: 'org.reserve', actorId: null, actorKind: null, orgId: org.org_id, targetType: 'org', targetId: org.org_id,
    data: { name: org.name, handle: org.handle, via: 'signup', client_address: r.clientAddress, ...(org.reclaimed ? { reclaimed_from: org.reclaimed } : {}) },
  }));
}

/** Gives a reservation back: the pending organisation the person reserved goes, and its handle is free again. */
export function releaseOrganization(prisma: PrismaClient, orgId: string, principalId: string): Promise<boolean> {
  return deletePendingOrganization(prisma, orgId, principalId);
}

/** Activates the person's pending organisation with them as admin, audited `org.activate` in the same transaction; false when it is not theirs or not pending. */
export function activateOrganization(d: { prisma: PrismaClient }, req: Request | null, orgId: string, principalId: string): Promise<boolean> {
  return activatePendingOrganization(d.prisma, orgId, principalId, (tx) => writeAuditIn(tx, req, {
    action: 'org.activate', orgId, targetType: 'org', targetId: orgId, data: {},
  }));
}

/**
 * DELETE /v1/me, in the deletion's transaction: the person leaves every
 * organisation and loses every grant. An organisation keeps at least one
 * admin: a last admin with other members (people: tokens never count) is
 * 409 `last_admin`. Organisations left with no person are marked `deleting`
 * and their agents stopped; their data is erased in the
 * background (with catalog deletion, a later issue's).
 */
export async function removeFromOrganizations(tx: Db, principalId: string) {
  const standing = await standingIn(tx, principalId);
  const stranded = standing.find((s) => s.role === 'admin' && s.otherAdmins === 0 && s.otherMembers > 0);
  if (stranded) {
    throw conflict('last_admin', `you are the last admin of ${stranded.handle}; make another member an admin first`, {
      org_id: stranded.orgId, remedy: `PATCH /v1/orgs/${stranded.orgId}/members/{member_id} with {"role": "admin"}`,
    });
  }
  const leftEmpty = standing.filter((s) => s.otherMembers === 0).map((s) => s.orgId);
  const removed = await removePerson(tx, principalId, leftEmpty);
  return { memberships_removed: removed.memberships, grants_removed: removed.grants, organizations_left_empty: leftEmpty, agents_stopped: removed.tokensStopped };
}
