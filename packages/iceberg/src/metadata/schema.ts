// Walking, checking and re-numbering Iceberg schemas.

import { invalid } from './errors';
import { stringifyJson } from './json';
import type { IcebergType, ListType, MapType, Schema, StructField, StructType } from './model';
import { NULL_DEFAULT_KINDS, parsePrimitiveType, V3_KINDS, type ParsedPrimitive } from './types';

/** One id-bearing node of a schema: a struct field, a list element or a map key/value. */
export interface SchemaNode {
  id: number;
  /** Dotted full name, as Java's `findColumnName` gives it (list element: `a.element`). */
  name: string;
  type: IcebergType;
  required: boolean;
  /** The struct field itself, when the node is one (defaults live there). */
  field?: StructField;
  /** Inside a list or map somewhere above: cannot be an identifier or partition source. */
  inCollection: boolean;
  /** Some struct above it is optional. */
  underOptional: boolean;
}

export const isStruct = (t: IcebergType): t is StructType => typeof t === 'object' && t.type === 'struct';
export const isList = (t: IcebergType): t is ListType => typeof t === 'object' && t.type === 'list';
export const isMap = (t: IcebergType): t is MapType => typeof t === 'object' && t.type === 'map';

/** Every id-bearing node, depth first in declaration order. */
export function schemaNodes(schema: { fields: StructField[] }): SchemaNode[] {
  const out: SchemaNode[] = [];
  const visit = (type: IcebergType, prefix: string, inCollection: boolean, underOptional: boolean) => {
    if (isStruct(type)) {
      for (const f of type.fields) {
        const name = prefix ? `${prefix}.${f.name}` : f.name;
        out.push({ id: f.id, name, type: f.type, required: f.required, field: f, inCollection, underOptional });
        visit(f.type, name, inCollection, underOptional || !f.required);
      }
    } else if (isList(type)) {
      const name = `${prefix}.element`;
      out.push({ id: type['element-id'], name, type: type.element, required: type['element-required'], inCollection: true, underOptional });
      visit(type.element, name, true, underOptional);
    } else if (isMap(type)) {
      out.push({ id: type['key-id'], name: `${prefix}.key`, type: type.key, required: true, inCollection: true, underOptional });
      out.push({ id: type['value-id'], name: `${prefix}.value`, type: type.value, required: type['value-required'], inCollection: true, underOptional });
      visit(type.key, `${prefix}.key`, true, underOptional);
      visit(type.value, `${prefix}.value`, true, underOptional);
    }
  };
  visit({ type: 'struct', fields: schema.fields }, '', false, false);
  return out;
}

/** Nodes by id; the first node wins if ids repeat (validateSchema reports repeats). */
export function indexById(schema: { fields: StructField[] }): Map<number, SchemaNode> {
  const index = new Map<number, SchemaNode>();
  for (const node of schemaNodes(schema)) if (!index.has(node.id)) index.set(node.id, node);
  return index;
}

export function highestFieldId(schema: { fields: StructField[] }): number {
  let max = 0;
  for (const node of schemaNodes(schema)) max = Math.max(max, node.id);
  return max;
}

export const primitiveOf = (type: IcebergType): ParsedPrimitive | null =>
  typeof type === 'string' ? parsePrimitiveType(type) : null;

/** Same columns and identifier fields, whatever the schema id (Java `sameSchema`). */
export function sameSchema(a: Schema, b: Schema): boolean {
  const ids = (s: Schema) => [...(s['identifier-field-ids'] ?? [])].sort((x, y) => x - y).join(',');
  return stringifyJson(a.fields) === stringifyJson(b.fields) && ids(a) === ids(b);
}

/**
 * Checks what the Java Schema constructor and `Schema.checkCompatibility` check: unique
 * ids, unique names per struct, valid identifier fields, types and defaults allowed in
 * this format version. Throws InvalidUpdateError listing every problem.
 */
export function validateSchema(schema: Schema, formatVersion: number): void {
  const problems: string[] = [];
  const nodes = schemaNodes(schema);
  const byId = new Map<number, SchemaNode>();
  for (const node of nodes) {
    const seen = byId.get(node.id);
    if (seen) problems.push(`duplicate field id ${node.id} (${seen.name} and ${node.name})`);
    else byId.set(node.id, node);
  }

  const checkStructNames = (type: IcebergType, where: string) => {
    if (isStruct(type)) {
      const names = new Set<string>();
      for (const f of type.fields) {
        if (names.has(f.name)) problems.push(`duplicate field name ${where}${f.name}`);
        names.add(f.name);
        checkStructNames(f.type, `${where}${f.name}.`);
      }
    } else if (isList(type)) checkStructNames(type.element, `${where}element.`);
    else if (isMap(type)) {
      checkStructNames(type.key, `${where}key.`);
      checkStructNames(type.value, `${where}value.`);
    }
  };
  checkStructNames({ type: 'struct', fields: schema.fields }, '');

  for (const node of nodes) {
    const prim = primitiveOf(node.type);
    if (prim && V3_KINDS.has(prim.kind) && formatVersion < 3) {
      problems.push(`invalid type for ${node.name}: ${String(node.type)} is not supported until v3`);
    }
    const field = node.field;
    if (!field) continue;
    const initial = field['initial-default'];
    const write = field['write-default'];
    if (initial !== undefined && initial !== null && formatVersion < 3) {
      problems.push(`invalid initial default for ${node.name}: non-null default is not supported until v3`);
    }
    if (prim && NULL_DEFAULT_KINDS.has(prim.kind)) {
      if ((initial ?? null) !== null || (write ?? null) !== null) {
        problems.push(`invalid default for ${node.name}: ${prim.kind} columns must default to null`);
      }
    }
    if (prim?.kind === 'unknown' && field.required) problems.push(`${node.name} of type unknown must be optional`);
  }

  for (const id of schema['identifier-field-ids'] ?? []) {
    const node = byId.get(id);
    if (!node) {
      problems.push(`identifier field ${id} does not exist`);
      continue;
    }
    const prim = primitiveOf(node.type);
    if (!prim || prim.kind === 'variant') problems.push(`identifier field ${node.name} must be a primitive type`);
    else if (prim.kind === 'float' || prim.kind === 'double') problems.push(`identifier field ${node.name} cannot be float or double`);
    if (!node.required) problems.push(`identifier field ${node.name} must be required`);
    if (node.inCollection) problems.push(`identifier field ${node.name} cannot be nested in a list or map`);
    else if (node.underOptional) problems.push(`identifier field ${node.name} cannot be nested in an optional struct`);
  }

  if (problems.length > 0) invalid(`Invalid schema for v${formatVersion}: ${problems.join('; ')}`);
}

/**
 * Re-numbers every id in a schema the way Java's `TypeUtil.assignFreshIds` does: a
 * struct's own fields first, then their nested types in order; a list's element id
 * before its element type; a map's key and value ids before their types. Returns the
 * new schema and the old-id → new-id mapping (to re-point specs and sort orders).
 */
export function assignFreshIds(
  schema: Schema,
  nextId: () => number,
  schemaId: number,
): { schema: Schema; idMap: Map<number, number> } {
  const idMap = new Map<number, number>();
  const fresh = (old: number) => {
    const id = nextId();
    if (!idMap.has(old)) idMap.set(old, id);
    return id;
  };

  const reassign = (type: IcebergType): IcebergType => {
    if (isStruct(type)) {
      const ids = type.fields.map((f) => fresh(f.id));
      return { ...type, fields: type.fields.map((f, i) => ({ ...f, id: ids[i], type: reassign(f.type) })) };
    }
    if (isList(type)) {
      const elementId = fresh(type['element-id']);
      return { ...type, 'element-id': elementId, element: reassign(type.element) };
    }
    if (isMap(type)) {
      const keyId = fresh(type['key-id']);
      const valueId = fresh(type['value-id']);
      return { ...type, 'key-id': keyId, key: reassign(type.key), 'value-id': valueId, value: reassign(type.value) };
    }
    return type;
  };

  const struct = reassign({ type: 'struct', fields: schema.fields }) as StructType;
  const { 'schema-id': _id, 'identifier-field-ids': identifiers, fields: _fields, type: _type, ...rest } = schema;
  const out: Schema = { type: 'struct', 'schema-id': schemaId, ...rest, fields: struct.fields };
  if (identifiers !== undefined) {
    out['identifier-field-ids'] = identifiers.map((id) => idMap.get(id) ?? invalid(`identifier field ${id} does not exist`));
  }
  return { schema: out, idMap };
}
