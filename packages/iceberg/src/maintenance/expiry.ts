// Snapshot expiry planning: which refs and snapshots go, which stay and why, and the
// commit that removes them. Pure: the maintenance worker commits `updates` with
// `requirements` through the catalog and, on a 409, plans again from fresh metadata.
//
// Iceberg's procedure (spec "Snapshot Retention Policy"), with Floe's cap added:
//   1. remove every ref but `main` whose snapshot is older than its max-ref-age
//      (and any ref whose snapshot no longer exists, as the Java reference does);
//   2. keep every remaining ref's snapshot;
//   3. walk each branch's ancestry newest first and keep a snapshot while it is one of
//      the first min-snapshots-to-keep, or it is younger than max-snapshot-age AND among
//      the newest `maxSnapshots`; the first snapshot failing both ends the walk;
//   4. a snapshot in no kept branch's ancestry and no kept tag is unreferenced: it stays
//      while younger than the table's max-snapshot-age, and (Floe) only the newest
//      `maxSnapshots` of them do, so staged or rolled-back snapshots cannot grow without
//      bound either; min-snapshots-to-keep does not apply to them (it is a branch rule);
//   5. everything else expires.
// Invariant: the plan only removes what it read; every ref it read is asserted, so a
// concurrent commit to any branch or tag fails the expiry commit instead of racing it.

import { MAIN_BRANCH, refsOf } from '../metadata/helpers';
import type { Snapshot, SnapshotRef, TableMetadata, TableRequirement, TableUpdate } from '../metadata/model';
import { branchRetention, refMaxAge, tableRetention, type ExpiryDefaults, type RetentionPolicy } from './retention';
import { formatDuration } from './words';

export interface ExpiryOptions {
  nowMs: number;
  defaults: ExpiryDefaults;
}

export interface RetainedSnapshot {
  snapshotId: bigint;
  timestampMs: bigint;
  /** The strongest reason: a ref head or tag first, e.g. `main head`, `tag v1`, `within 7 days on main`. */
  reason: string;
  /** Every reason that keeps it, strongest first. */
  reasons: string[];
}

export interface ExpiredSnapshot {
  snapshotId: bigint;
  timestampMs: bigint;
  /** e.g. `older than 7 days on main`, `beyond the newest 20 on main`, `unreferenced, older than 7 days`. */
  reason: string;
}

export interface RemovedRef {
  name: string;
  type: SnapshotRef['type'];
  snapshotId: bigint;
  reason: string;
}

export interface ExpiryPlan {
  /** The table-wide policy in force (per-ref properties may still differ). */
  policy: RetentionPolicy;
  /** Newest first. */
  retained: RetainedSnapshot[];
  /** Newest first. */
  expired: ExpiredSnapshot[];
  expiredSnapshotIds: bigint[];
  removedRefs: RemovedRef[];
  /** `remove-snapshot-ref` per removed ref, then one `remove-snapshots`; empty: nothing to commit. */
  updates: TableUpdate[];
  /** The table's uuid and every ref's snapshot as read. */
  requirements: TableRequirement[];
}

export function planSnapshotExpiry(metadata: TableMetadata, opts: ExpiryOptions): ExpiryPlan {
  const now = BigInt(opts.nowMs);
  const policy = tableRetention(metadata, opts.defaults);
  const snapshots = metadata.snapshots ?? [];
  const byId = new Map(snapshots.map((s) => [s['snapshot-id'], s]));
  const refs = orderedRefs(refsOf(metadata));
  const kept = new Map<bigint, string[]>();
  const keep = (id: bigint, reason: string) => kept.set(id, [...(kept.get(id) ?? []), reason]);
  const expiredWhy = new Map<bigint, string>();

  // 1. refs past their max age
  const removedRefs: RemovedRef[] = [];
  const liveRefs: [string, SnapshotRef][] = [];
  for (const [name, ref] of refs) {
    const reason = name === MAIN_BRANCH ? null : refRemoval(name, ref, byId.get(ref['snapshot-id']), now, policy);
    if (reason) removedRefs.push({ name, type: ref.type, snapshotId: ref['snapshot-id'], reason });
    else liveRefs.push([name, ref]);
  }

  // 2. every remaining ref's own snapshot
  for (const [name, ref] of liveRefs) {
    if (!byId.has(ref['snapshot-id'])) continue; // main at a missing snapshot keeps nothing
    keep(ref['snapshot-id'], ref.type === 'tag' ? `tag ${name}` : name === MAIN_BRANCH ? `${name} head` : `branch ${name} head`);
  }

  // 3. branch ancestries
  const referenced = new Set<bigint>(liveRefs.map(([, ref]) => ref['snapshot-id']));
  for (const [name, ref] of liveRefs) {
    if (ref.type !== 'branch') continue;
    walkBranch(name, ancestry(ref['snapshot-id'], byId), branchRetention(ref, policy), now, {
      keep,
      expire: (id, reason) => {
        if (!expiredWhy.has(id)) expiredWhy.set(id, reason);
      },
      visit: (id) => referenced.add(id),
    });
  }

  // 4. unreferenced snapshots, newest first, against the table-wide policy
  const cutoff = now - policy.maxSnapshotAgeMs;
  const age = formatDuration(policy.maxSnapshotAgeMs);
  let unreferencedKept = 0;
  for (const s of newestFirst(snapshots)) {
    const id = s['snapshot-id'];
    if (referenced.has(id)) continue;
    if (s['timestamp-ms'] < cutoff) expiredWhy.set(id, `unreferenced, older than ${age}`);
    else if (unreferencedKept >= policy.maxSnapshots) expiredWhy.set(id, `unreferenced, beyond the newest ${policy.maxSnapshots}`);
    else {
      unreferencedKept++;
      keep(id, `unreferenced, within ${age}`);
    }
  }

  // 5. the rest expires
  const retained: RetainedSnapshot[] = [];
  const expired: ExpiredSnapshot[] = [];
  for (const s of newestFirst(snapshots)) {
    const id = s['snapshot-id'];
    const reasons = kept.get(id);
    if (reasons) retained.push({ snapshotId: id, timestampMs: s['timestamp-ms'], reason: reasons[0], reasons });
    else expired.push({ snapshotId: id, timestampMs: s['timestamp-ms'], reason: expiredWhy.get(id) ?? 'unreferenced' });
  }
  const expiredSnapshotIds = expired.map((e) => e.snapshotId);

  const updates: TableUpdate[] = removedRefs.map((r) => ({ action: 'remove-snapshot-ref', 'ref-name': r.name }));
  if (expiredSnapshotIds.length > 0) updates.push({ action: 'remove-snapshots', 'snapshot-ids': expiredSnapshotIds });
  return { policy, retained, expired, expiredSnapshotIds, removedRefs, updates, requirements: requirementsFor(metadata, refs) };
}

interface BranchVisitor {
  keep(id: bigint, reason: string): void;
  expire(id: bigint, reason: string): void;
  visit(id: bigint): void;
}

/** Step 3 for one branch; `chain` is head first. */
function walkBranch(name: string, chain: Snapshot[], rule: RetentionPolicy, now: bigint, v: BranchVisitor) {
  const cutoff = now - rule.maxSnapshotAgeMs;
  const age = formatDuration(rule.maxSnapshotAgeMs);
  let stopped = false;
  chain.forEach((s, i) => {
    const id = s['snapshot-id'];
    v.visit(id);
    const young = s['timestamp-ms'] >= cutoff;
    const why = i >= rule.maxSnapshots && young ? `beyond the newest ${rule.maxSnapshots} on ${name}` : `older than ${age} on ${name}`;
    if (i === 0) return; // the head was kept with the refs
    if (stopped) return v.expire(id, why);
    if (young && i < rule.maxSnapshots) v.keep(id, `within ${age} on ${name}`);
    else if (i < rule.minSnapshotsToKeep) v.keep(id, `min-snapshots-to-keep (${rule.minSnapshotsToKeep}) on ${name}`);
    else {
      stopped = true;
      v.expire(id, why);
    }
  });
}

/** Why a ref (not main) is removed, or null when it stays. */
function refRemoval(name: string, ref: SnapshotRef, snapshot: Snapshot | undefined, now: bigint, policy: RetentionPolicy) {
  if (!snapshot) return `${ref.type} ${name} points to missing snapshot ${ref['snapshot-id']}`;
  const maxAge = refMaxAge(ref, policy);
  if (maxAge === null || now - snapshot['timestamp-ms'] <= maxAge) return null;
  return `${ref.type} ${name} older than max-ref-age ${formatDuration(maxAge)}`;
}

/** A snapshot and its parents while they still exist; a cycle in bad metadata ends it. */
function ancestry(headId: bigint, byId: Map<bigint, Snapshot>): Snapshot[] {
  const chain: Snapshot[] = [];
  const seen = new Set<bigint>();
  let s = byId.get(headId);
  while (s && !seen.has(s['snapshot-id'])) {
    chain.push(s);
    seen.add(s['snapshot-id']);
    const parent = s['parent-snapshot-id'];
    s = parent === undefined || parent === null ? undefined : byId.get(parent);
  }
  return chain;
}

/** main first, then branches, then tags, each by name: main's reasons read first. */
function orderedRefs(refs: Record<string, SnapshotRef>): [string, SnapshotRef][] {
  const rank = ([name, ref]: [string, SnapshotRef]) => (name === MAIN_BRANCH ? 0 : ref.type === 'branch' ? 1 : 2);
  return Object.entries(refs).sort((a, b) => rank(a) - rank(b) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** By timestamp, newest first; metadata order (commit order) breaks ties. */
function newestFirst(snapshots: Snapshot[]): Snapshot[] {
  return snapshots
    .map((s, i) => [s, i] as const)
    .sort(([a, i], [b, j]) => (a['timestamp-ms'] < b['timestamp-ms'] ? 1 : a['timestamp-ms'] > b['timestamp-ms'] ? -1 : j - i))
    .map(([s]) => s);
}

function requirementsFor(metadata: TableMetadata, refs: [string, SnapshotRef][]): TableRequirement[] {
  const requirements: TableRequirement[] = [];
  const uuid = metadata['table-uuid'];
  if (uuid !== undefined) requirements.push({ type: 'assert-table-uuid', uuid });
  for (const [name, ref] of refs) requirements.push({ type: 'assert-ref-snapshot-id', ref: name, 'snapshot-id': ref['snapshot-id'] });
  return requirements;
}
