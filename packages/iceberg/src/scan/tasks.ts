import type { Schema, TableMetadata } from '../metadata/model.js';
import { partitionSpecsOf } from '../metadata/helpers.js';
import { schemaNodes } from '../metadata/schema.js';
import type { LiveFile } from '../files/live-files.js';
import { FileContent, type DataFile } from '../files/manifest.js';
import { partitionKey } from '../files/partition.js';
import { partitionType } from '../files/types.js';
import { fromBinary, type IcebergValue } from '../files/values.js';
import { referencedDataFile } from '../maintenance/delete-scope.js';
import { toJsonValue } from './json-values.js';

// The file scan tasks of a planned scan (spec "Scan Planning"): each data file
// with the delete files that apply to it — position deletes and deletion
// vectors naming it, or position deletes of its partition without a named
// file, at a data sequence number at or after its own; equality deletes of
// its partition (or of an unpartitioned spec) after it — and their JSON in
// the REST catalog's shapes (`FileScanTask`, `DataFile`, `DeleteFile`), with
// the delete files of a page listed once and referenced by index. Deletes are
// indexed by the file they name and by partition first, so a plan of many
// files and deletes costs one pass over each.

export interface ScanTask {
  data: LiveFile;
  deletes: LiveFile[];
}

const partitionOf = (f: LiveFile) => `${f.specId}|${partitionKey(f.file.partition)}`;

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Each data file with the deletes that apply to it, in the order given. */
export function scanTasks(m: TableMetadata, data: readonly LiveFile[], deletes: readonly LiveFile[]): ScanTask[] {
  if (!deletes.length) return data.map((d) => ({ data: d, deletes: [] }));
  const unpartitioned = new Set(partitionSpecsOf(m).filter((s) => s.fields.length === 0).map((s) => s['spec-id'] ?? 0));
  const named = new Map<string, LiveFile[]>();
  const positionByPartition = new Map<string, LiveFile[]>();
  const equalityByPartition = new Map<string, LiveFile[]>();
  const equalityEverywhere: LiveFile[] = [];
  for (const d of deletes) {
    if ((d.file.content ?? FileContent.DATA) === FileContent.POSITION_DELETES) {
      const target = referencedDataFile(d.file);
      if (target !== null) push(named, target, d);
      else push(positionByPartition, partitionOf(d), d);
    } else if (d.file.content === FileContent.EQUALITY_DELETES) {
      if (unpartitioned.has(d.specId)) equalityEverywhere.push(d);
      else push(equalityByPartition, partitionOf(d), d);
    }
  }
  return data.map((f) => {
    const partition = partitionOf(f);
    const applies = [
      ...(named.get(f.file.file_path) ?? []).filter((d) => partitionOf(d) === partition && d.sequenceNumber >= f.sequenceNumber),
      ...(positionByPartition.get(partition) ?? []).filter((d) => d.sequenceNumber >= f.sequenceNumber),
      ...[...(equalityByPartition.get(partition) ?? []), ...equalityEverywhere].filter((d) => d.sequenceNumber > f.sequenceNumber),
    ];
    return { data: f, deletes: applies };
  });
}

/** The answer's `ScanTasks` part for some tasks: their delete files listed once each. */
export interface ScanTasksJson {
  'delete-files': unknown[];
  'file-scan-tasks': unknown[];
}

/** How a page of tasks is written: the table's metadata (partition types), the schema binding stats, and the columns whose stats to include. */
export interface TaskJsonOptions {
  metadata: TableMetadata;
  schema: Schema;
  /** Field ids whose column stats (sizes, counts, bounds) go with each data file; none when empty. */
  statsFieldIds: ReadonlySet<number>;
}

export function scanTasksJson(tasks: readonly ScanTask[], o: TaskJsonOptions): ScanTasksJson {
  const writer = new ContentFileWriter(o);
  const deleteFiles: unknown[] = [];
  const index = new Map<string, number>();
  const ref = (d: LiveFile) => {
    const key = `${d.file.file_path}#${d.file.referenced_data_file ?? ''}#${d.file.content_offset ?? ''}`;
    let i = index.get(key);
    if (i === undefined) {
      i = deleteFiles.push(writer.deleteFile(d)) - 1;
      index.set(key, i);
    }
    return i;
  };
  const fileScanTasks = tasks.map((t) => {
    const task: Record<string, unknown> = { 'data-file': writer.dataFile(t.data) };
    if (t.deletes.length) task['delete-file-references'] = t.deletes.map(ref);
    return task;
  });
  return { 'delete-files': deleteFiles, 'file-scan-tasks': fileScanTasks };
}

const CONTENT = ['data', 'position-deletes', 'equality-deletes'];

class ContentFileWriter {
  private readonly partitionTypes = new Map<number, Array<{ name: string; type: string }>>();
  private readonly statsTypes = new Map<number, string>();

  constructor(private readonly o: TaskJsonOptions) {
    for (const node of schemaNodes(o.schema)) {
      if (o.statsFieldIds.has(node.id) && typeof node.type === 'string') this.statsTypes.set(node.id, node.type);
    }
  }

  dataFile(f: LiveFile): Record<string, unknown> {
    const out = this.common(f);
    if (f.firstRowId !== null) out['first-row-id'] = f.firstRowId;
    if (this.statsTypes.size) Object.assign(out, this.stats(f.file));
    return out;
  }

  deleteFile(f: LiveFile): Record<string, unknown> {
    const out = this.common(f);
    const file = f.file;
    if (file.content === FileContent.EQUALITY_DELETES) out['equality-ids'] = file.equality_ids ?? [];
    else {
      if (file.content_offset !== null && file.content_offset !== undefined) {
        out['content-offset'] = file.content_offset;
        out['content-size-in-bytes'] = file.content_size_in_bytes ?? 0n;
      }
      // Not in the document's DeleteFile shape, which lets objects carry more: Java's parser reads it, and a deletion vector is meaningless without it.
      if (file.referenced_data_file) out['referenced-data-file'] = file.referenced_data_file;
    }
    return out;
  }

  private common(f: LiveFile): Record<string, unknown> {
    const file = f.file;
    const out: Record<string, unknown> = {
      'spec-id': f.specId,
      content: CONTENT[file.content ?? FileContent.DATA],
      'file-path': file.file_path,
      'file-format': file.file_format.toLowerCase(),
      partition: this.partition(f),
      'file-size-in-bytes': file.file_size_in_bytes,
      'record-count': file.record_count,
    };
    if (file.key_metadata) out['key-metadata'] = Buffer.from(file.key_metadata).toString('hex').toUpperCase();
    if (file.split_offsets?.length) out['split-offsets'] = file.split_offsets;
    if (file.sort_order_id !== null && file.sort_order_id !== undefined) out['sort-order-id'] = file.sort_order_id;
    return out;
  }

  /** The partition tuple in the spec's field order, each value as its JSON single value. */
  private partition(f: LiveFile): unknown[] {
    const fields = this.partitionFields(f.specId);
    return fields.map(({ name, type }) => {
      const v = f.file.partition?.[name];
      const json = v === null || v === undefined ? undefined : jsonValue(type, v);
      return json === undefined ? null : json;
    });
  }

  private partitionFields(specId: number): Array<{ name: string; type: string }> {
    let fields = this.partitionTypes.get(specId);
    if (!fields) {
      const spec = partitionSpecsOf(this.o.metadata).find((s) => (s['spec-id'] ?? 0) === specId);
      fields = spec ? partitionFieldsOf(spec, this.o.metadata) : [];
      this.partitionTypes.set(specId, fields);
    }
    return fields;
  }

  private stats(file: DataFile): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const counts = (name: string, m: Map<number, bigint> | null | undefined) => {
      const keys = [...(m?.keys() ?? [])].filter((k) => this.statsTypes.has(k));
      if (keys.length) out[name] = { keys, values: keys.map((k) => m!.get(k)!) };
    };
    const bounds = (name: string, m: Map<number, Uint8Array> | null | undefined) => {
      const keys: number[] = [];
      const values: unknown[] = [];
      for (const [k, bytes] of m ?? []) {
        const type = this.statsTypes.get(k);
        if (!type) continue;
        const v = jsonValue(type, fromBinaryOrNull(type, bytes));
        if (v === undefined) continue;
        keys.push(k);
        values.push(v);
      }
      if (keys.length) out[name] = { keys, values };
    };
    counts('column-sizes', file.column_sizes);
    counts('value-counts', file.value_counts);
    counts('null-value-counts', file.null_value_counts);
    counts('nan-value-counts', file.nan_value_counts);
    bounds('lower-bounds', file.lower_bounds);
    bounds('upper-bounds', file.upper_bounds);
    return out;
  }
}

/** A spec's fields with their result types, from the newest schema that still holds every source column. */
function partitionFieldsOf(spec: ReturnType<typeof partitionSpecsOf>[number], m: TableMetadata): Array<{ name: string; type: string }> {
  const schemas = [...(m.schemas ?? [])].reverse();
  for (const schema of schemas) {
    try {
      return partitionType(spec, schema).fields.map((f) => ({ name: f.name, type: f.type as string }));
    } catch {
      // A source column this schema lacks: an older one has it.
    }
  }
  return spec.fields.map((f) => ({ name: f.name, type: 'string' }));
}

function fromBinaryOrNull(type: string, bytes: Uint8Array): IcebergValue | null {
  try {
    return fromBinary(type, bytes);
  } catch {
    return null;
  }
}

/** A value as its JSON single value; undefined when it cannot be written (then it is left out). */
function jsonValue(type: string, v: IcebergValue | null): unknown {
  if (v === null) return undefined;
  try {
    const out = toJsonValue(type, v);
    // NaN and infinities have no JSON number.
    return typeof out === 'number' && !Number.isFinite(out) ? undefined : out;
  } catch {
    return undefined;
  }
}
