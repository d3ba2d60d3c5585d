// Struct, list and map values in the shape the Parquet writer takes, with
// every leaf converted by toInternal. A writer of rows it did not make (the
// ingest roller) conforms each value first, so a value that does not fit is
// refused for its own row instead of failing the whole file.
import type { IcebergType } from '../metadata/model.js';
import { toInternal } from './values.js';

/** The value conformed to `type`: structs as objects, lists as arrays, maps as [key, value] pairs; throws a TypeError naming the part that does not fit. */
export function conformValue(type: IcebergType, required: boolean, v: unknown, name: string): unknown {
  if (v === null || v === undefined) {
    if (required) throw new TypeError(`${name} is required`);
    return null;
  }
  if (typeof type === 'string') {
    try {
      return toInternal(type, v);
    } catch (err) {
      throw new TypeError(`${name} (${type}): ${(err as Error).message}`);
    }
  }
  if (type.type === 'struct') {
    if (typeof v !== 'object' || Array.isArray(v) || v instanceof Map) throw new TypeError(`${name} must be an object`);
    const obj = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const c of type.fields) out[c.name] = conformValue(c.type, c.required, obj[c.name], `${name}.${c.name}`);
    return out;
  }
  if (type.type === 'list') {
    if (!Array.isArray(v)) throw new TypeError(`${name} must be an array`);
    return v.map((e) => conformValue(type.element, type['element-required'], e, `${name}.element`));
  }
  if (typeof v !== 'object') throw new TypeError(`${name} must be an object or a list of [key, value] pairs`);
  const entries: [unknown, unknown][] = v instanceof Map ? [...v]
    : Array.isArray(v) ? v.map((e) => (Array.isArray(e) ? [e[0], e[1]] : [e?.key, e?.value]))
      : Object.entries(v as object);
  return entries.map(([k, val]) => [
    conformValue(type.key, true, k, `${name}.key`),
    conformValue(type.value, type['value-required'], val, `${name}.value`),
  ]);
}
