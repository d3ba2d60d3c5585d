// A table's sort order as the rewrite's ORDER BY. Sorting by a field's source
// column also orders it by any transform that keeps order (identity, year,
// month, day, hour, truncate[W]), so those sort by the source column itself;
// void sorts nothing. bucket[N] (a hash) and multi-argument transforms are
// refused, as are sources inside a list or map; sources inside structs work.
import type { IcebergType, Schema, SortOrder } from '@floe/iceberg';
import { UnsupportedSchemaError, readName } from './columns.js';
import { ident } from './sql.js';

const ORDER_KEEPING = /^(identity|year|month|day|hour|truncate\[\d+\])$/;

export function orderBy(order: SortOrder, schema: Schema): string {
  const keys: string[] = [];
  for (const field of order.fields) {
    const transform = field.transform.trim();
    if (transform === 'void') continue;
    if (!ORDER_KEEPING.test(transform)) throw new UnsupportedSchemaError(`sorting by ${transform} is not supported`);
    const sourceId = field['source-id'] ?? (field['source-ids']?.length === 1 ? field['source-ids'][0] : undefined);
    if (sourceId === undefined) throw new UnsupportedSchemaError('sort fields with several sources are not supported');
    const path = columnPath(schema, sourceId);
    if (!path) throw new UnsupportedSchemaError(`sort source ${sourceId} is not a column outside lists and maps`);
    keys.push(`${path} ${field.direction === 'desc' ? 'DESC' : 'ASC'} ${field['null-order'] === 'nulls-first' ? 'NULLS FIRST' : 'NULLS LAST'}`);
  }
  return keys.length ? `ORDER BY ${keys.join(', ')}` : '';
}

/** `d.c<id>` for a top-level column, `d.c<id>."child"…` inside structs. */
function columnPath(schema: Schema, id: number): string | undefined {
  for (const top of schema.fields) {
    if (top.id === id) return `d.${readName(id)}`;
    const inner = structPath(top.type, id);
    if (inner) return `d.${readName(top.id)}${inner}`;
  }
  return undefined;
}

function structPath(type: IcebergType, id: number): string | undefined {
  if (typeof type === 'string' || type.type !== 'struct') return undefined;
  for (const f of type.fields) {
    if (f.id === id) return `.${ident(f.name)}`;
    const inner = structPath(f.type, id);
    if (inner) return `.${ident(f.name)}${inner}`;
  }
  return undefined;
}
