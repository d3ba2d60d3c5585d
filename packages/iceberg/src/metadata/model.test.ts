import { parseJson } from './json';
import {
  MetadataParseError,
  parseTableMetadata,
  parseTableRequirements,
  parseTableUpdates,
  serializeTableMetadata,
  toTableMetadata,
  TABLE_METADATA_KEY_ORDER,
} from './model';
import { V1_JAVA, V1_LEGACY, V2_EMPTY, V2_JAVA, V3_SAMPLE } from './testdata/samples';

const roundTrip = (text: string) => serializeTableMetadata(parseTableMetadata(text));

describe('table metadata round trip', () => {
  it.each([
    ['v1 (Java)', V1_JAVA],
    ['v1 (legacy writer)', V1_LEGACY],
    ['v2 (Java)', V2_JAVA],
    ['v2 (empty table)', V2_EMPTY],
    ['v3', V3_SAMPLE],
  ])('%s serialises back to the same value', (_name, text) => {
    const once = roundTrip(text);
    expect(parseJson(once)).toEqual(parseJson(text));
    // and is stable
    expect(roundTrip(once)).toBe(once);
  });

  it('keeps 64-bit ids exact, as bigint in the model and as digits in the JSON', () => {
    const meta = parseTableMetadata(V2_JAVA);
    expect(meta['current-snapshot-id']).toBe(9223372036854775807n);
    expect(meta.snapshots![0]['snapshot-id']).toBe(4611686018427387905n);
    expect(meta['last-sequence-number']).toBe(3n);
    expect(meta['last-updated-ms']).toBe(1717100003000n);
    const out = serializeTableMetadata(meta);
    expect(out).toContain('"current-snapshot-id":9223372036854775807');
    expect(out).toContain('"parent-snapshot-id":4611686018427387905');
  });

  it('preserves unknown keys, including big numbers inside them', () => {
    const out = roundTrip(V2_JAVA);
    expect(out).toContain('"x-writer-extension":{"big":12345678901234567890,"ratio":0.25,"list":[1,-9007199254740993]}');
    const nested = roundTrip(V2_EMPTY.replace('"fields":[]}]', '"fields":[],"x-spec":true}]'));
    expect(nested).toContain('"x-spec":true');
  });

  it('writes known keys in the Java writer order, unknown keys last', () => {
    const keys = Object.keys(JSON.parse(roundTrip(V2_JAVA).replace(/\d{16,}/g, '0')));
    const known = keys.filter((k) => TABLE_METADATA_KEY_ORDER.includes(k));
    expect(known).toEqual(TABLE_METADATA_KEY_ORDER.filter((k) => keys.includes(k)));
    expect(keys.at(-1)).toBe('x-writer-extension');
  });

  it('keeps v3 types, parameterised type spacing, defaults and nulls as written', () => {
    const meta = parseTableMetadata(V3_SAMPLE);
    const fields = meta.schemas![0].fields;
    expect(fields.map((f) => f.type)).toContain('geography(OGC:CRS84, karney)');
    expect(fields[7]['initial-default']).toBe(9007199254740993n);
    expect(meta.refs!.main['max-ref-age-ms']).toBeNull();
    expect(meta['next-row-id']).toBe(150n);
  });
});

describe('table metadata validation', () => {
  const v2 = () => parseJson(V2_EMPTY) as Record<string, unknown>;
  const expectInvalid = (value: unknown, message: RegExp) => {
    expect(() => toTableMetadata(value)).toThrow(MetadataParseError);
    expect(() => toTableMetadata(value)).toThrow(message);
  };

  it('refuses unsupported format versions', () => {
    expectInvalid({ ...v2(), 'format-version': 4 }, /unsupported format version 4/);
  });

  it('requires the v2 fields in v2 and next-row-id in v3', () => {
    const { 'last-sequence-number': _a, ...noSeq } = v2();
    expectInvalid(noSeq, /last-sequence-number is required in format v2/);
    const { 'table-uuid': _b, ...noUuid } = v2();
    expectInvalid(noUuid, /table-uuid is required/);
    expectInvalid({ ...v2(), 'format-version': 3 }, /next-row-id is required in format v3/);
  });

  it('requires the current schema, default spec and default sort order to exist', () => {
    expectInvalid({ ...v2(), 'current-schema-id': 5 }, /current-schema-id 5 is not in schemas/);
    expectInvalid({ ...v2(), 'default-spec-id': 5 }, /default-spec-id 5/);
    expectInvalid({ ...v2(), 'default-sort-order-id': 5 }, /default-sort-order-id 5/);
  });

  it('refuses unknown primitive types and bad decimals', () => {
    const withType = (type: string) => {
      const m = v2();
      (m.schemas as { fields: { type: unknown }[] }[])[0].fields[1].type = type;
      return m;
    };
    expectInvalid(withType('timestamp_ms'), /unknown primitive type "timestamp_ms"/);
    expectInvalid(withType('decimal(39,2)'), /unknown primitive type/);
    expect(() => toTableMetadata(withType('decimal( 38 , 2 )'))).not.toThrow();
    expect(() => toTableMetadata(withType('fixed[ 3 ]'))).not.toThrow();
    expect(() => toTableMetadata(withType('geometry'))).not.toThrow();
  });

  it('refuses a JS number beyond 2^53 for a long (it may already be rounded)', () => {
    expectInvalid({ ...v2(), 'last-updated-ms': 2 ** 60 }, /beyond 2\^53/);
    expectInvalid({ ...v2(), 'last-updated-ms': 2n ** 64n }, /outside the 64-bit range/);
  });

  it('reports JSON syntax errors as MetadataParseError', () => {
    expect(() => parseTableMetadata('{"format-version": 2,')).toThrow(MetadataParseError);
  });
});

describe('REST request parts', () => {
  it('parses updates with exact snapshot ids and refuses unknown actions', () => {
    const updates = parseTableUpdates(
      parseJson('[{"action":"remove-snapshots","snapshot-ids":[9223372036854775807, 1]},{"action":"set-current-schema","schema-id":-1}]'),
    );
    expect(updates[0]).toEqual({ action: 'remove-snapshots', 'snapshot-ids': [9223372036854775807n, 1n] });
    expect(() => parseTableUpdates([{ action: 'add-view-version', 'view-version': {} }])).toThrow(MetadataParseError);
    expect(() => parseTableUpdates([{ action: 'set-location' }])).toThrow(/location/);
  });

  it('parses requirements, including a null ref snapshot id', () => {
    const reqs = parseTableRequirements(
      parseJson('[{"type":"assert-ref-snapshot-id","ref":"main","snapshot-id":null},{"type":"assert-create"}]'),
    );
    expect(reqs).toEqual([{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': null }, { type: 'assert-create' }]);
    expect(() => parseTableRequirements([{ type: 'assert-ref-snapshot-id', ref: 'main' }])).toThrow(MetadataParseError);
    expect(() => parseTableRequirements([{ type: 'assert-nothing' }])).toThrow(MetadataParseError);
  });
});
