import { InvalidUpdateError, MetadataParseError, parseJson } from '../metadata/index';
import {
  applyViewUpdates,
  checkViewRequirements,
  newViewMetadata,
  parseViewMetadata,
  parseViewRequirements,
  parseViewUpdates,
  parseViewVersion,
  serializeViewMetadata,
  type ViewMetadata,
  type ViewUpdate,
  type ViewVersion,
} from './index';

// The example from apache/iceberg format/view-spec.md (Appendix / "Example").
const SPEC_EXAMPLE = `{
  "view-uuid": "fa6506c3-7681-40c8-86dc-e36561f83385",
  "format-version" : 1,
  "location" : "s3://bucket/warehouse/default.db/event_agg",
  "current-version-id" : 1,
  "properties" : { "comment" : "Daily event counts" },
  "versions" : [ {
    "version-id" : 1,
    "timestamp-ms" : 1573518431292,
    "schema-id" : 1,
    "default-catalog" : "prod",
    "default-namespace" : [ "default" ],
    "summary" : { "engine-name" : "Spark", "engineVersion" : "3.3.2" },
    "representations" : [ {
      "type" : "sql",
      "sql" : "SELECT\\n    COUNT(1), CAST(event_ts AS DATE)\\nFROM events\\nGROUP BY 2",
      "dialect" : "spark"
    } ]
  } ],
  "schemas": [ {
    "schema-id": 1,
    "type" : "struct",
    "fields" : [
      { "id" : 1, "name" : "event_count", "required" : false, "type" : "int", "doc" : "Count of events" },
      { "id" : 2, "name" : "event_date", "required" : false, "type" : "date" }
    ]
  } ],
  "version-log" : [ { "timestamp-ms" : 1573518431292, "version-id" : 1 } ]
}`;

const UUID = '11111111-2222-4333-8444-555555555555';
const schema = {
  type: 'struct' as const,
  'schema-id': 0,
  fields: [{ id: 1, name: 'x', required: false, type: 'long' }],
};

function version(sql: string, extra: Partial<ViewVersion> = {}): ViewVersion {
  return parseViewVersion({
    'version-id': 1,
    'timestamp-ms': 1000,
    'schema-id': 0,
    summary: { 'engine-name': 'spark' },
    representations: [{ type: 'sql', sql, dialect: 'spark' }],
    'default-namespace': ['ns'],
    ...extra,
  });
}

function create(): ViewMetadata {
  return newViewMetadata({
    location: 's3://b/v',
    schema,
    viewVersion: version('select 1', { 'version-id': 7, 'schema-id': 42 }),
    properties: { comment: 'c' },
    viewUuid: UUID,
    nowMs: 5,
  });
}

describe('view metadata model', () => {
  it('round-trips the spec example', () => {
    const meta = parseViewMetadata(SPEC_EXAMPLE);
    expect(meta['current-version-id']).toBe(1);
    expect(meta.versions[0]!['timestamp-ms']).toBe(1573518431292n);
    expect(meta.versions[0]!.representations[0]!.dialect).toBe('spark');
    const text = serializeViewMetadata(meta);
    expect(parseViewMetadata(text)).toEqual(meta);
    expect(serializeViewMetadata(parseViewMetadata(text))).toBe(text);
    // Same content as the spec text, modulo whitespace/key order.
    expect(parseJson(text)).toEqual(parseJson(SPEC_EXAMPLE));
    expect(text.startsWith('{"view-uuid":')).toBe(true);
  });

  it('keeps unknown keys and 64-bit timestamps', () => {
    const text = SPEC_EXAMPLE.replace('"format-version" : 1,', '"format-version" : 1, "x-ext": {"a": 1},').replace(
      /1573518431292/g,
      '9223372036854775807',
    );
    const meta = parseViewMetadata(text);
    const out = serializeViewMetadata(meta);
    expect(out).toContain('"x-ext":{"a":1}');
    expect(out).toContain('"timestamp-ms":9223372036854775807');
  });

  it('rejects invalid metadata', () => {
    expect(() => parseViewMetadata(SPEC_EXAMPLE.replace('"format-version" : 1', '"format-version" : 2'))).toThrow(
      MetadataParseError,
    );
    expect(() => parseViewMetadata(SPEC_EXAMPLE.replace('"current-version-id" : 1', '"current-version-id" : 3'))).toThrow(
      /current-version-id 3 is not in versions/,
    );
    expect(() => parseViewMetadata(SPEC_EXAMPLE.replace('"dialect" : "spark"', '"x": 1'))).toThrow(/dialect/);
    expect(() => parseViewMetadata('{')).toThrow(MetadataParseError);
  });

  it('parses updates and requirements', () => {
    const updates = parseViewUpdates(
      parseJson(
        `[{"action":"set-properties","updates":{"a":"b"}},{"action":"remove-properties","removals":["a"]},` +
          `{"action":"set-current-view-version","view-version-id":-1},{"action":"set-location","location":"s3://x"}]`,
      ),
    );
    expect(updates.map((u) => u.action)).toEqual([
      'set-properties', 'remove-properties', 'set-current-view-version', 'set-location',
    ]);
    expect(() => parseViewUpdates([{ action: 'add-snapshot', snapshot: {} }])).toThrow(MetadataParseError);
    expect(parseViewRequirements([{ type: 'assert-view-uuid', uuid: UUID }])).toHaveLength(1);
    expect(() => parseViewRequirements([{ type: 'assert-table-uuid', uuid: UUID }])).toThrow(MetadataParseError);
  });
});

describe('newViewMetadata', () => {
  it('creates version 1 with an assigned schema and a version-log entry', () => {
    const meta = create();
    expect(meta).toMatchObject({
      'view-uuid': UUID,
      'format-version': 1,
      location: 's3://b/v',
      properties: { comment: 'c' },
      'current-version-id': 1,
    });
    expect(meta.schemas).toEqual([{ ...schema, 'schema-id': 0 }]);
    expect(meta.versions).toHaveLength(1);
    expect(meta.versions[0]).toMatchObject({ 'version-id': 1, 'schema-id': 0, 'timestamp-ms': 1000n });
    expect(meta['version-log']).toEqual([{ 'version-id': 1, 'timestamp-ms': 1000n }]);
    // Serialisable and re-readable.
    expect(parseViewMetadata(serializeViewMetadata(meta))).toEqual(meta);
  });

  it('refuses a version without representations or with duplicate dialects', () => {
    const base = { location: 's3://b/v', schema, nowMs: 1 };
    expect(() => newViewMetadata({ ...base, viewVersion: version('q', { representations: [] }) })).toThrow(
      InvalidUpdateError,
    );
    const dup = version('q', {
      representations: [
        { type: 'sql', sql: 'a', dialect: 'Spark' },
        { type: 'sql', sql: 'b', dialect: 'spark' },
      ],
    });
    expect(() => newViewMetadata({ ...base, viewVersion: dup })).toThrow(/multiple queries for dialect spark/);
  });
});

describe('applyViewUpdates', () => {
  const replace = (sql: string, ts: number, extra: Partial<ViewVersion> = {}): ViewUpdate[] => [
    { action: 'add-schema', schema: { ...schema, 'schema-id': 5, fields: [{ id: 1, name: sql, required: false, type: 'int' }] } },
    { action: 'add-view-version', 'view-version': version(sql, { 'version-id': 1, 'timestamp-ms': BigInt(ts), 'schema-id': -1, ...extra }) },
    { action: 'set-current-view-version', 'view-version-id': -1 },
  ];

  it('replaces a view: new ids, last-added schema, version-log appended', () => {
    const base = create();
    const next = applyViewUpdates(base, replace('select 2', 2000), { nowMs: 9 });
    expect(next['current-version-id']).toBe(2);
    expect(next.schemas.map((s) => s['schema-id'])).toEqual([0, 5]);
    expect(next.versions.map((v) => [v['version-id'], v['schema-id']])).toEqual([[1, 0], [2, 5]]);
    expect(next['version-log']).toEqual([
      { 'version-id': 1, 'timestamp-ms': 1000n },
      { 'version-id': 2, 'timestamp-ms': 2000n },
    ]);
    expect(base['current-version-id']).toBe(1); // base untouched
    expect(base.versions).toHaveLength(1);
  });

  it('reuses an identical version and schema; rolling back logs the commit time', () => {
    const v2 = applyViewUpdates(create(), replace('select 2', 2000), { nowMs: 9 });
    const again = applyViewUpdates(
      v2,
      [
        { action: 'add-view-version', 'view-version': version('select 1', { 'version-id': 99, 'timestamp-ms': 3000n }) },
        { action: 'set-current-view-version', 'view-version-id': -1 },
      ],
      { nowMs: 4000 },
    );
    expect(again.versions).toHaveLength(2);
    expect(again['current-version-id']).toBe(1);
    expect(again['version-log'].at(-1)).toEqual({ 'version-id': 1, 'timestamp-ms': 4000n });
    // add-schema of a known schema reuses its id
    const same = applyViewUpdates(v2, [{ action: 'add-schema', schema: { ...schema, 'schema-id': 3 } }]);
    expect(same.schemas).toHaveLength(2);
  });

  it('bounds retained versions by version.history.num-entries', () => {
    let meta = applyViewUpdates(create(), [
      { action: 'set-properties', updates: { 'version.history.num-entries': '2' } },
    ]);
    for (let i = 2; i <= 4; i++) meta = applyViewUpdates(meta, replace(`select ${i}`, i * 1000), { nowMs: 1 });
    expect(meta.versions.map((v) => v['version-id'])).toEqual([3, 4]);
    expect(meta['version-log'].map((e) => e['version-id'])).toEqual([3, 4]);
    expect(meta['current-version-id']).toBe(4);
    expect(() =>
      applyViewUpdates(meta, [{ action: 'set-properties', updates: { 'version.history.num-entries': '0' } }]),
    ).toThrow(/must be a positive integer/);
  });

  it('applies location and property updates', () => {
    const meta = applyViewUpdates(create(), [
      { action: 'set-location', location: 's3://other' },
      { action: 'set-properties', updates: { a: '1', b: '2' } },
      { action: 'remove-properties', removals: ['a', 'comment', 'missing'] },
      { action: 'assign-uuid', uuid: UUID.toUpperCase() },
      { action: 'upgrade-format-version', 'format-version': 1 },
    ]);
    expect(meta.location).toBe('s3://other');
    expect(meta.properties).toEqual({ b: '2' });
    expect(meta['version-log']).toHaveLength(1); // current version unchanged
  });

  it('throws InvalidUpdateError for invalid updates', () => {
    const base = create();
    const cases: [ViewUpdate[], RegExp][] = [
      [[{ action: 'set-current-view-version', 'view-version-id': -1 }], /no current version id has been set/],
      [[{ action: 'set-current-view-version', 'view-version-id': 9 }], /unknown version: 9/],
      [[{ action: 'add-view-version', 'view-version': version('q', { 'schema-id': -1 }) }], /no schema has been added/],
      [[{ action: 'add-view-version', 'view-version': version('q', { 'schema-id': 8 }) }], /unknown schema: 8/],
      [[{ action: 'upgrade-format-version', 'format-version': 2 }], /unsupported format version/],
      [[{ action: 'upgrade-format-version', 'format-version': 0 }], /downgrade/],
      [[{ action: 'assign-uuid', uuid: '22222222-2222-4333-8444-555555555555' }], /reassign/],
      [[{ action: 'set-location', location: '' }], /empty/],
      [
        replace('q', 1, { representations: [{ type: 'sql', sql: 'q', dialect: 'trino' }] }),
        /loss of view dialects/,
      ],
    ];
    for (const [updates, message] of cases) {
      expect(() => applyViewUpdates(base, updates)).toThrow(InvalidUpdateError);
      expect(() => applyViewUpdates(base, updates)).toThrow(message);
    }
    // Dropping a dialect is allowed when the view says so.
    const allowed = applyViewUpdates(base, [
      { action: 'set-properties', updates: { 'replace.drop-dialect.allowed': 'true' } },
      ...replace('q', 1, { representations: [{ type: 'sql', sql: 'q', dialect: 'trino' }] }),
    ]);
    expect(allowed['current-version-id']).toBe(2);
    // A create without a version is refused.
    expect(() => applyViewUpdates(null, [{ action: 'set-location', location: 's3://x' }])).toThrow(
      /no versions were added/,
    );
  });
});

describe('checkViewRequirements', () => {
  it('passes a matching uuid and reports a mismatch or a missing view', () => {
    const meta = create();
    expect(checkViewRequirements(meta, [{ type: 'assert-view-uuid', uuid: UUID.toUpperCase() }])).toEqual([]);
    const failures = checkViewRequirements(meta, [
      { type: 'assert-view-uuid', uuid: '22222222-2222-4333-8444-555555555555' },
    ]);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.message).toMatch(/UUID does not match/);
    expect(checkViewRequirements(null, [{ type: 'assert-view-uuid', uuid: UUID }])[0]!.message).toMatch(
      /does not exist/,
    );
  });
});
