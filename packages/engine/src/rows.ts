// DuckDB values as plain JavaScript, in @floe/iceberg's representation
// (packages/iceberg/src/files/values.ts) so rows read here can be handed to
// its writer and value helpers unchanged:
//   boolean -> boolean; tinyint..integer, float, double -> number;
//   bigint, hugeint -> bigint; date -> number (days since epoch);
//   time, timestamp, timestamptz -> bigint micros; timestamp_ns -> bigint nanos;
//   decimal -> string, exact ('-12.30': toInternal takes it, an unscaled
//   bigint would lose its scale out of context); varchar, uuid -> string;
//   blob -> Uint8Array; list -> array; struct -> object; map -> {key, value}[].
import {
  DuckDBTypeId, arrayFromListValue, booleanFromValue, bigintFromBigIntValue, bytesFromBlobValue,
  createDuckDBValueConverter, numberFromValue, objectArrayFromMapValue, objectFromStructValue,
  stringFromValue, type DuckDBResultReader, type DuckDBValueConverter,
} from '@duckdb/node-api';

export type Row = Record<string, unknown>;

type Converter = DuckDBValueConverter<unknown>;
const days: Converter = (v) => (v as { days: number }).days;
const micros: Converter = (v) => (v as { micros: bigint }).micros;
const nanos: Converter = (v) => (v as { nanos: bigint }).nanos;
const text: Converter = (v) => String(v);

const byTypeId = Object.fromEntries(Object.values(DuckDBTypeId)
  .filter((id): id is DuckDBTypeId => typeof id === 'number')
  .map((id) => [id, text])) as Record<DuckDBTypeId, Converter>;
Object.assign(byTypeId, {
  [DuckDBTypeId.SQLNULL]: () => null,
  [DuckDBTypeId.BOOLEAN]: booleanFromValue,
  [DuckDBTypeId.TINYINT]: numberFromValue,
  [DuckDBTypeId.SMALLINT]: numberFromValue,
  [DuckDBTypeId.INTEGER]: numberFromValue,
  [DuckDBTypeId.UTINYINT]: numberFromValue,
  [DuckDBTypeId.USMALLINT]: numberFromValue,
  [DuckDBTypeId.UINTEGER]: numberFromValue,
  [DuckDBTypeId.FLOAT]: numberFromValue,
  [DuckDBTypeId.DOUBLE]: numberFromValue,
  [DuckDBTypeId.BIGINT]: bigintFromBigIntValue,
  [DuckDBTypeId.UBIGINT]: bigintFromBigIntValue,
  [DuckDBTypeId.HUGEINT]: bigintFromBigIntValue,
  [DuckDBTypeId.UHUGEINT]: bigintFromBigIntValue,
  [DuckDBTypeId.DECIMAL]: text,
  [DuckDBTypeId.DATE]: days,
  [DuckDBTypeId.TIME]: micros,
  [DuckDBTypeId.TIMESTAMP]: micros,
  [DuckDBTypeId.TIMESTAMP_TZ]: micros,
  [DuckDBTypeId.TIMESTAMP_NS]: nanos,
  [DuckDBTypeId.VARCHAR]: stringFromValue,
  [DuckDBTypeId.UUID]: text,
  [DuckDBTypeId.BLOB]: bytesFromBlobValue,
  [DuckDBTypeId.LIST]: arrayFromListValue,
  [DuckDBTypeId.STRUCT]: objectFromStructValue,
  [DuckDBTypeId.MAP]: objectArrayFromMapValue,
});

/** Values of types outside the list above (interval, time with zone, enum…) come back as DuckDB's text for them. */
export const plainValue: Converter = createDuckDBValueConverter(byTypeId);

export function toRows(reader: DuckDBResultReader): Row[] {
  return reader.convertRowObjects(plainValue);
}
