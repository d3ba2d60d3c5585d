// Shared fixtures for this folder's tests (not exported from index.ts).
import type { DataFile } from './manifest.js';
import type { PartitionSpec, Schema } from '../metadata/model.js';

/** Above 2^53: any double round trip would corrupt it. */
export const BIG_SNAPSHOT_ID = 9_007_199_254_740_993n * 1000n + 7n;
export const BIG_PARENT_ID = 2n ** 62n + 12345n;

export const schema: Schema = {
  type: 'struct',
  'schema-id': 0,
  fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'category', required: false, type: 'string' },
    { id: 3, name: 'ts', required: false, type: 'timestamptz' },
    { id: 4, name: 'amount', required: false, type: 'decimal(12,2)' },
  ],
};

export const unpartitioned: PartitionSpec = { 'spec-id': 0, fields: [] };

export const byCategoryAndDay: PartitionSpec = {
  'spec-id': 1,
  fields: [
    { 'source-id': 2, 'field-id': 1000, name: 'category', transform: 'identity' },
    { 'source-id': 3, 'field-id': 1001, name: 'ts_day', transform: 'day' },
    { 'source-id': 1, 'field-id': 1002, name: 'id-bucket', transform: 'bucket[16]' },
    { 'source-id': 4, 'field-id': 1003, name: 'amount', transform: 'identity' },
  ],
};

export function dataFile(path: string, records: bigint, partition: DataFile['partition'] = {}): DataFile {
  return {
    content: 0,
    file_path: path,
    file_format: 'parquet',
    partition,
    record_count: records,
    file_size_in_bytes: 1000n + records,
    column_sizes: new Map([[1, 100n], [2, 50n]]),
    value_counts: new Map([[1, records], [2, records]]),
    null_value_counts: new Map([[1, 0n], [2, 1n]]),
    nan_value_counts: new Map(),
    lower_bounds: new Map([[1, new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0])]]),
    upper_bounds: new Map([[1, new Uint8Array([9, 0, 0, 0, 0, 0, 0, 0])]]),
    split_offsets: [4n],
    sort_order_id: 0,
  };
}

/** In-memory object store for the `read` callbacks. */
export function memoryStore() {
  const files = new Map<string, Uint8Array>();
  return {
    files,
    put: (path: string, bytes: Uint8Array) => void files.set(path, bytes),
    read: async (path: string) => {
      const b = files.get(path);
      if (!b) throw new Error(`not found: ${path}`);
      return b;
    },
  };
}
