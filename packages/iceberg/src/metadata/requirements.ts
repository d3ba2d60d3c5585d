// Checking REST TableRequirements (optimistic-concurrency assertions) against the table
// as it is now. Failures become 409 CommitFailedException in the catalog.

import {
  currentSchemaId,
  defaultSortOrderId,
  defaultSpecId,
  lastPartitionId,
  refsOf,
} from './helpers';
import type { TableMetadata, TableRequirement } from './model';

export interface RequirementFailure<R = TableRequirement> {
  requirement: R;
  message: string;
}

/** The loop shared with view requirements: `check` gives a failure message, or null when `r` holds. */
export function collectFailures<M, R>(
  current: M,
  requirements: readonly R[],
  check: (current: M, r: R) => string | null,
): RequirementFailure<R>[] {
  const failures: RequirementFailure<R>[] = [];
  for (const requirement of requirements) {
    const message = check(current, requirement);
    if (message !== null) failures.push({ requirement, message });
  }
  return failures;
}

/**
 * Returns every requirement `current` does not meet (empty: all hold). `current` is null
 * when the table does not exist. Messages follow the Java reference's wording.
 */
export function checkRequirements(
  current: TableMetadata | null,
  requirements: readonly TableRequirement[],
): RequirementFailure[] {
  return collectFailures(current, requirements, check);
}

function check(meta: TableMetadata | null, r: TableRequirement): string | null {
  if (r.type === 'assert-create') {
    return meta === null ? null : 'Requirement failed: table already exists';
  }
  if (meta === null) {
    // A create transaction also asserts the (empty) table's last assigned ids; Java
    // lets those pass when there is no table yet.
    if (r.type === 'assert-last-assigned-field-id' || r.type === 'assert-last-assigned-partition-id') return null;
    return `Requirement failed: table does not exist (${r.type})`;
  }

  switch (r.type) {
    case 'assert-table-uuid': {
      const uuid = meta['table-uuid'];
      return uuid !== undefined && uuid.toLowerCase() === r.uuid.toLowerCase()
        ? null
        : `Requirement failed: UUID does not match: expected ${uuid ?? 'none'} != ${r.uuid}`;
    }
    case 'assert-ref-snapshot-id': {
      const ref = refsOf(meta)[r.ref];
      const expected = r['snapshot-id'];
      if (ref) {
        if (expected === null) return `Requirement failed: ${ref.type} ${r.ref} was created concurrently`;
        if (expected !== ref['snapshot-id']) {
          return `Requirement failed: ${ref.type} ${r.ref} has changed: expected id ${expected} != ${ref['snapshot-id']}`;
        }
        return null;
      }
      return expected === null ? null : `Requirement failed: branch or tag ${r.ref} is missing, expected ${expected}`;
    }
    case 'assert-last-assigned-field-id':
      return meta['last-column-id'] === r['last-assigned-field-id']
        ? null
        : `Requirement failed: last assigned field id changed: expected id ${r['last-assigned-field-id']} != ${meta['last-column-id']}`;
    case 'assert-current-schema-id':
      return currentSchemaId(meta) === r['current-schema-id']
        ? null
        : `Requirement failed: current schema changed: expected id ${r['current-schema-id']} != ${currentSchemaId(meta)}`;
    case 'assert-last-assigned-partition-id':
      return lastPartitionId(meta) === r['last-assigned-partition-id']
        ? null
        : `Requirement failed: last assigned partition id changed: expected id ${r['last-assigned-partition-id']} != ${lastPartitionId(meta)}`;
    case 'assert-default-spec-id':
      return defaultSpecId(meta) === r['default-spec-id']
        ? null
        : `Requirement failed: default partition spec changed: expected id ${r['default-spec-id']} != ${defaultSpecId(meta)}`;
    case 'assert-default-sort-order-id':
      return defaultSortOrderId(meta) === r['default-sort-order-id']
        ? null
        : `Requirement failed: default sort order changed: expected id ${r['default-sort-order-id']} != ${defaultSortOrderId(meta)}`;
  }
}
