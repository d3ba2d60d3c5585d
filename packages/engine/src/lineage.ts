// v3 row lineage through a rewrite (Iceberg spec "Row Lineage"): a rewritten
// row keeps its identity, so the new files carry `_row_id` and
// `_last_updated_sequence_number` explicitly. A row whose input file already
// holds the value keeps it; otherwise it inherits: _row_id = the file's
// first_row_id + the row's position (null when the file has no
// first_row_id), _last_updated_sequence_number = the file's data sequence
// number. Both are read by their reserved field ids and joined through
// `__inputs` (deletes.ts).
import { readName } from './columns.js';

export const ROW_ID_FIELD_ID = 2147483540;
export const LAST_UPDATED_SEQUENCE_NUMBER_FIELD_ID = 2147483539;

/** The two columns as written: appended after the schema's own. */
export const LINEAGE_FIELDS = [
  { id: ROW_ID_FIELD_ID, name: '_row_id', type: 'long' },
  { id: LAST_UPDATED_SEQUENCE_NUMBER_FIELD_ID, name: '_last_updated_sequence_number', type: 'long' },
] as const;

export function lineageColumns(files: readonly { filePath: string; sequenceNumber?: bigint }[]) {
  const missing = files.find((f) => f.sequenceNumber === undefined);
  if (missing) throw new RangeError(`row lineage needs the data sequence number of ${missing.filePath}`);
  const rowId = readName(ROW_ID_FIELD_ID);
  const updated = readName(LAST_UPDATED_SEQUENCE_NUMBER_FIELD_ID);
  return {
    reads: [
      { id: ROW_ID_FIELD_ID, name: rowId, type: 'BIGINT' },
      { id: LAST_UPDATED_SEQUENCE_NUMBER_FIELD_ID, name: updated, type: 'BIGINT' },
    ],
    selects: [
      `coalesce(d.${rowId}, i.first_row_id + d.file_row_number) AS "_row_id"`,
      `coalesce(d.${updated}, i.data_seq) AS "_last_updated_sequence_number"`,
    ],
  };
}
