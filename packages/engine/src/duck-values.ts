// Values in @floe/iceberg's representation (packages/iceberg/src/files/values.ts,
// what packages/ingest's rows.ts maps JSON to) as DuckDB values, for the
// appender: rows the JavaScript reading made join the ones SQL read.
import {
  blobValue, dateValue, decimalValue, listValue, mapValue, structValue, timeValue, timestampNanosValue, timestampTZValue,
  timestampValue, uuidValue, type DuckDBValue,
} from '@duckdb/node-api';
import { requirePrimitive, type IcebergType } from '@floe/iceberg';

export function duckValue(type: IcebergType, v: unknown): DuckDBValue {
  if (v === null || v === undefined) return null;
  if (typeof type !== 'string') {
    if (type.type === 'struct') {
      const obj = v as Record<string, unknown>;
      return structValue(Object.fromEntries(type.fields.map((f) => [f.name, duckValue(f.type, obj[f.name])])));
    }
    if (type.type === 'list') return listValue((v as unknown[]).map((e) => duckValue(type.element, e)));
    return mapValue((v as [unknown, unknown][]).map(([k, val]) => ({ key: duckValue(type.key, k), value: duckValue(type.value, val) })));
  }
  const p = requirePrimitive(type);
  switch (p.kind) {
    case 'date': return dateValue(v as number);
    case 'time': return timeValue(v as bigint);
    case 'timestamp': return timestampValue(v as bigint);
    case 'timestamptz': return timestampTZValue(v as bigint);
    case 'timestamp_ns': return timestampNanosValue(v as bigint);
    case 'decimal': return decimalValue(v as bigint, p.precision!, p.scale!);
    case 'uuid': return uuidValue(BigInt(`0x${(v as string).replaceAll('-', '')}`));
    case 'binary': return blobValue(v as Uint8Array);
    default: return v as DuckDBValue; // boolean, int, long, float, double, string: the same in both
  }
}
