import { InvalidArgumentError } from 'commander';
import { parseColumns, parseFormatVersion, schemaFromJson } from './table-schema';

test('--columns: name:type in order, ids from 1, ! marks required', () => {
  expect(parseColumns('id:long!,msg:string,at:timestamptz')).toEqual({
    type: 'struct',
    'schema-id': 0,
    fields: [
      { id: 1, name: 'id', required: true, type: 'long' },
      { id: 2, name: 'msg', required: false, type: 'string' },
      { id: 3, name: 'at', required: false, type: 'timestamptz' },
    ],
  });
});

test('every primitive type, in any case and with spaces around the parts', () => {
  const all = ['boolean', 'int', 'long', 'float', 'double', 'date', 'time', 'timestamp', 'timestamptz', 'string', 'uuid', 'binary'];
  const schema = parseColumns(all.map((t) => ` c_${t} : ${t.toUpperCase()} `).join(','));
  expect(schema.fields.map((f) => [f.name, f.type])).toEqual(all.map((t) => [`c_${t}`, t]));
  expect(parseColumns('id : long !').fields[0]).toEqual({ id: 1, name: 'id', required: true, type: 'long' });
});

test('decimal(P,S) keeps its comma and is written as Iceberg spells it', () => {
  expect(parseColumns('id:long!,amount:decimal( 10 , 2 )!,rate:decimal(38,0)').fields).toEqual([
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'amount', required: true, type: 'decimal(10,2)' },
    { id: 3, name: 'rate', required: false, type: 'decimal(38,0)' },
  ]);
});

test('refusals name the column and what is wrong, as usage errors', () => {
  const refused = (spec: string) => {
    try {
      parseColumns(spec);
    } catch (err) {
      expect(err).toBeInstanceOf(InvalidArgumentError);
      return (err as Error).message;
    }
    throw new Error(`accepted ${spec}`);
  };
  expect(refused('id:long,msg')).toMatch(/column 2: write it as name:type/);
  expect(refused(':long')).toMatch(/column 1: write it as name:type/);
  expect(refused('')).toMatch(/column 1/);
  expect(refused('id:long,')).toMatch(/column 2/);
  expect(refused('id:bigint')).toMatch(/column id: unknown type "bigint"; the types are boolean, int, .* and decimal\(P,S\)/);
  expect(refused('id:')).toMatch(/unknown type ""/);
  expect(refused('id:long,id:string')).toMatch(/column id is named twice/);
  expect(refused('a:decimal(39,2)')).toMatch(/precision P from 1 to 38/);
  expect(refused('a:decimal(0,0)')).toMatch(/precision P from 1 to 38/);
  expect(refused('a:decimal(5,6)')).toMatch(/scale S from 0 to P/);
  expect(refused('a:decimal(5)')).toMatch(/unknown type/);
});

test('--schema JSON: a struct schema as given, or its fields alone', () => {
  const fields = [{ id: 1, name: 'id', required: true, type: 'long' }];
  expect(schemaFromJson(JSON.stringify({ type: 'struct', 'schema-id': 0, fields }), '--schema')).toEqual({ type: 'struct', 'schema-id': 0, fields });
  expect(schemaFromJson(JSON.stringify(fields), 'schema.json')).toEqual({ type: 'struct', fields });
  expect(schemaFromJson(JSON.stringify({ fields }), 'schema.json')).toEqual({ type: 'struct', fields });
  expect(() => schemaFromJson('{"type":', 'schema.json')).toThrow(/schema.json is not JSON/);
  expect(() => schemaFromJson('"long"', '--schema')).toThrow(/--schema is not a schema/);
  expect(() => schemaFromJson('{"type":"list","fields":[{}]}', '--schema')).toThrow(/a table schema is a struct, not "list"/);
  expect(() => schemaFromJson('{"type":"struct","fields":[]}', '--schema')).toThrow(/non-empty "fields"/);
});

test('--format-version is 2 or 3', () => {
  expect(parseFormatVersion('2')).toBe(2);
  expect(parseFormatVersion('3')).toBe(3);
  for (const bad of ['1', '4', 'v2', '', '2.0']) expect(() => parseFormatVersion(bad)).toThrow(InvalidArgumentError);
});
