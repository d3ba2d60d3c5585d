import { randomBytes } from 'node:crypto';
import type { PrismaClient } from '@floe/db';
import { badRequest, conflict } from '@floe/http';
import {
  activatePendingOrganization, deletePendingOrganization, insertPendingOrganization, organizationByHandle, removePerson, standingIn, takenHandles,
} from '../store/organizations';
import { handleCandidates, handleFrom, handleProblem } from './handles';

// Organisations as sign-up makes them: a handle looked up, a pending
// organisation reserving its handle for the person signing up (`org.reserve`),
// and its activation once the person proves the address (`org.activate`).

export const HANDLE_PATTERN = '^[a-z0-9]$|^[a-z0-9](?:[a-z0-9]|-(?!-)){1,38}[a-z0-9]$';

/** A free handle near `base`: `base-2`, `base-3`, … or a random suffix. */
export async function freeHandle(prisma: PrismaClient, base: string): Promise<string> {
  const candidates = handleCandidates(handleFrom(base)).slice(1);
  const taken = await takenHandles(prisma, candidates);
  return candidates.find((c) => !taken.has(c)) ?? `${handleFrom(base).slice(0, 30)}-${randomBytes(3).toString('hex')}`;
}

/** GET /v1/handles/{handle}: whether the handle is valid and free, and one to use instead when it is not. */
export async function lookUpHandle(prisma: PrismaClient, handle: string) {
  const reason = handleProblem(handle);
  const taken = reason ? false : (await organizationByHandle(prisma, handle)) !== null;
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
}

/**
 * A pending organisation holding its handle for the person signing up
 * (`principalId`, chosen at the start of the sign-up). Asking again for the
 * same person answers the same reservation. 400 `invalid_value` (with
 * `reason` and `suggestion`) for a handle the grammar refuses, 409
 * `handle_taken` (with `suggestion`) for one somebody holds.
 */
export async function reserveOrganization(prisma: PrismaClient, r: { name: string; handle?: string; principalId: string }): Promise<ReservedOrganization> {
  const handle = r.handle ?? handleFrom(r.name);
  const problem = handleProblem(handle);
  if (problem) {
    throw badRequest('invalid_value', `${handle} is not a valid handle`, { field: 'handle', reason: problem === 'double_dash' ? 'invalid' : problem, suggestion: await freeHandle(prisma, handle) });
  }
  const holder = await organizationByHandle(prisma, handle);
  if (holder?.status === 'pending' && holder.createdBy === r.principalId) {
    return { org_id: holder.id, name: holder.name, handle: holder.handle, status: 'pending', created: false };
  }
  const id = `org_${randomBytes(12).toString('hex')}`;
  if (holder || !(await insertPendingOrganization(prisma, { id, name: r.name, handle, createdBy: r.principalId }))) {
    throw conflict('handle_taken', `the handle ${handle} is taken`, { field: 'handle', suggestion: await freeHandle(prisma, handle) });
  }
  return { org_id: id, name: r.name, handle, status: 'pending', created: true };
}

/** Gives a reservation back: the pending organisation the person reserved goes, and its handle is free again. */
export function releaseOrganization(prisma: PrismaClient, orgId: string, principalId: string): Promise<boolean> {
  return deletePendingOrganization(prisma, orgId, principalId);
}

/** Activates the person's pending organisation with them as admin; false when it is not theirs or not pending. */
export function activateOrganization(prisma: PrismaClient, orgId: string, principalId: string): Promise<boolean> {
  return activatePendingOrganization(prisma, orgId, principalId);
}

/**
 * DELETE /v1/me, the control plane's part: the person leaves every
 * organisation and loses every grant. An organisation keeps at least one
 * admin: a last admin with other members is 409 `last_admin`. Organisations
 * left with nobody are marked `deleting`; their data is erased in the
 * background (with catalog deletion, a later issue's).
 */
export async function removeFromOrganizations(prisma: PrismaClient, principalId: string) {
  const standing = await standingIn(prisma, principalId);
  const stranded = standing.find((s) => s.role === 'admin' && s.otherAdmins === 0 && s.otherMembers > 0);
  if (stranded) {
    throw conflict('last_admin', `you are the last admin of ${stranded.handle}; make another member an admin first`, {
      org_id: stranded.orgId, remedy: `PATCH /v1/orgs/${stranded.orgId}/members/{member_id} with {"role": "admin"}`,
    });
  }
  const leftEmpty = standing.filter((s) => s.otherMembers === 0).map((s) => s.orgId);
  const removed = await removePerson(prisma, principalId, leftEmpty);
  return { memberships_removed: removed.memberships, grants_removed: removed.grants, organizations_left_empty: leftEmpty };
}
