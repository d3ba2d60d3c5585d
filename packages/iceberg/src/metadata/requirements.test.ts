import { parseTableMetadata, type TableRequirement } from './model';
import { checkRequirements } from './requirements';
import { V1_LEGACY, V2_JAVA } from './testdata/samples';

const meta = parseTableMetadata(V2_JAVA);
const MAIN = 9223372036854775807n;
const TAGGED = 4611686018427387905n;

const passing: TableRequirement[] = [
  { type: 'assert-table-uuid', uuid: '9C12D441-03FE-4693-9A96-A0705DDF69C1' },
  { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': MAIN },
  { type: 'assert-ref-snapshot-id', ref: 'v1.0', 'snapshot-id': TAGGED },
  { type: 'assert-ref-snapshot-id', ref: 'new-branch', 'snapshot-id': null },
  { type: 'assert-last-assigned-field-id', 'last-assigned-field-id': 7 },
  { type: 'assert-current-schema-id', 'current-schema-id': 1 },
  { type: 'assert-last-assigned-partition-id', 'last-assigned-partition-id': 1000 },
  { type: 'assert-default-spec-id', 'default-spec-id': 0 },
  { type: 'assert-default-sort-order-id', 'default-sort-order-id': 1 },
];

describe('checkRequirements', () => {
  it('passes when every requirement holds', () => {
    expect(checkRequirements(meta, passing)).toEqual([]);
  });

  it.each<[TableRequirement, RegExp]>([
    [{ type: 'assert-create' }, /table already exists/],
    [{ type: 'assert-table-uuid', uuid: '00000000-0000-0000-0000-000000000000' }, /UUID does not match/],
    [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': MAIN - 1n }, /branch main has changed: expected id 9223372036854775806 != 9223372036854775807/],
    [{ type: 'assert-ref-snapshot-id', ref: 'v1.0', 'snapshot-id': null }, /tag v1.0 was created concurrently/],
    [{ type: 'assert-ref-snapshot-id', ref: 'gone', 'snapshot-id': 5n }, /branch or tag gone is missing, expected 5/],
    [{ type: 'assert-last-assigned-field-id', 'last-assigned-field-id': 6 }, /last assigned field id changed: expected id 6 != 7/],
    [{ type: 'assert-current-schema-id', 'current-schema-id': 0 }, /current schema changed: expected id 0 != 1/],
    [{ type: 'assert-last-assigned-partition-id', 'last-assigned-partition-id': 999 }, /last assigned partition id changed/],
    [{ type: 'assert-default-spec-id', 'default-spec-id': 1 }, /default partition spec changed/],
    [{ type: 'assert-default-sort-order-id', 'default-sort-order-id': 0 }, /default sort order changed/],
  ])('fails %j', (requirement, message) => {
    const failures = checkRequirements(meta, [requirement]);
    expect(failures).toHaveLength(1);
    expect(failures[0].requirement).toBe(requirement);
    expect(failures[0].message).toMatch(message);
  });

  it('reports every failure, not just the first', () => {
    const failures = checkRequirements(meta, [
      { type: 'assert-current-schema-id', 'current-schema-id': 0 },
      ...passing,
      { type: 'assert-default-spec-id', 'default-spec-id': 9 },
    ]);
    expect(failures.map((f) => f.requirement.type)).toEqual(['assert-current-schema-id', 'assert-default-spec-id']);
  });

  it('against a table that does not exist: assert-create and the id assertions of a create pass, the rest fail', () => {
    expect(
      checkRequirements(null, [
        { type: 'assert-create' },
        { type: 'assert-last-assigned-field-id', 'last-assigned-field-id': 0 },
        { type: 'assert-last-assigned-partition-id', 'last-assigned-partition-id': 999 },
      ]),
    ).toEqual([]);
    const failures = checkRequirements(null, passing);
    expect(failures.map((f) => f.requirement.type)).toEqual([
      'assert-table-uuid', 'assert-ref-snapshot-id', 'assert-ref-snapshot-id', 'assert-ref-snapshot-id',
      'assert-current-schema-id', 'assert-default-spec-id', 'assert-default-sort-order-id',
    ]);
    expect(failures[0].message).toMatch(/table does not exist/);
  });

  it('understands v1 files without refs or the modern id fields', () => {
    const v1 = parseTableMetadata(V1_LEGACY);
    expect(
      checkRequirements(v1, [
        { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': null },
        { type: 'assert-current-schema-id', 'current-schema-id': 0 },
        { type: 'assert-default-spec-id', 'default-spec-id': 0 },
        { type: 'assert-default-sort-order-id', 'default-sort-order-id': 0 },
        { type: 'assert-last-assigned-partition-id', 'last-assigned-partition-id': 1000 },
      ]),
    ).toEqual([]);
    expect(checkRequirements(v1, [{ type: 'assert-table-uuid', uuid: '5b2a8a57-3a6b-4c5e-8d55-3e1f0c7c9a00' }])[0].message).toMatch(
      /expected none/,
    );
  });
});
