// Avro object container files for Iceberg metadata (manifests, manifest lists).
//
// We encode the container ourselves and use avsc only for datum encoding: its
// BlockEncoder re-serialises a parsed Type and so drops Iceberg's `field-id`,
// `element-id`, ... attributes, and it builds its Type without our long type.
// Writing the header ourselves keeps the raw schema JSON byte for byte.
import { randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import avro from 'avsc';
import { snappyUncompress } from 'hyparquet';

/**
 * Avro `long` as BigInt. avsc's default long throws beyond 2^53, and Iceberg
 * snapshot ids are random 63-bit numbers.
 */
export const bigintLongType = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint | number) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (v: unknown) => BigInt(v as string),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint' || (typeof n === 'number' && Number.isSafeInteger(n)),
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

/** An avsc Type for a raw Avro schema, with every long (also logical longs) as BigInt. */
export function avroType(schema: unknown): avro.Type {
  return avro.Type.forSchema(schema as avro.Schema, {
    typeHook: (s: unknown) =>
      s === 'long' || (typeof s === 'object' && s !== null && (s as { type?: unknown }).type === 'long')
        ? bigintLongType
        : undefined,
  } as Partial<avro.ForSchemaOptions>);
}

export type AvroCodec = 'null' | 'deflate';

const MAGIC = Buffer.from([0x4f, 0x62, 0x6a, 0x01]); // "Obj\x01"
const metaType = avro.Type.forSchema({ type: 'map', values: 'bytes' });
const BLOCK_BYTES = 1 << 20;

export interface WriteContainerOptions {
  /** Raw Avro schema JSON (kept verbatim in the header, with its Iceberg id attributes). */
  schema: object;
  records: Iterable<unknown>;
  /** User metadata; values are written as UTF-8 bytes. */
  metadata?: Record<string, string>;
  codec?: AvroCodec;
}

export function writeAvroContainer({ schema, records, metadata = {}, codec = 'deflate' }: WriteContainerOptions): Uint8Array {
  const type = avroType(schema);
  const sync = randomSync();
  const meta: Record<string, Buffer> = {
    'avro.schema': Buffer.from(JSON.stringify(schema)),
    'avro.codec': Buffer.from(codec),
  };
  for (const [k, v] of Object.entries(metadata)) meta[k] = Buffer.from(v);
  const parts: Buffer[] = [MAGIC, metaType.toBuffer(meta), sync];

  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (!pending.length) return;
    const raw = Buffer.concat(pending);
    const data = codec === 'deflate' ? deflateRawSync(raw) : raw;
    parts.push(zigzag(pending.length), zigzag(data.length), data, sync);
    pending = [];
    pendingBytes = 0;
  };
  for (const record of records) {
    const buf = type.toBuffer(record);
    pending.push(buf);
    pendingBytes += buf.length;
    if (pendingBytes >= BLOCK_BYTES) flush();
  }
  flush();
  return new Uint8Array(Buffer.concat(parts));
}

export interface AvroContainer<T = any> {
  /** The writer's schema as stored in the header (raw JSON, ids included). */
  schema: any;
  metadata: Record<string, string>;
  codec: string;
  records: T[];
}

/** Reads the header only (schema + metadata), without decoding records. */
export function readAvroHeader(bytes: Uint8Array): Omit<AvroContainer, 'records'> & { offset: number; sync: Buffer } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < 4 || !buf.subarray(0, 4).equals(MAGIC)) throw new Error('not an Avro object container file');
  const { value, offset } = metaType.decode(buf, 4);
  if (offset < 0) throw new Error('truncated Avro header');
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, Buffer>)) metadata[k] = v.toString('utf8');
  const schema = JSON.parse(metadata['avro.schema']);
  const codec = metadata['avro.codec'] ?? 'null';
  delete metadata['avro.schema'];
  delete metadata['avro.codec'];
  return { schema, metadata, codec, offset: offset + 16, sync: buf.subarray(offset, offset + 16) };
}

export function readAvroContainer<T = any>(bytes: Uint8Array): AvroContainer<T> {
  const header = readAvroHeader(bytes);
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const type = avroType(header.schema);
  const records: T[] = [];
  let pos = header.offset;
  while (pos < buf.length) {
    const count = readZigzag(buf, pos);
    const size = readZigzag(buf, count.offset);
    const start = size.offset;
    const data = decompress(header.codec, buf.subarray(start, start + size.value));
    let p = 0;
    for (let i = 0; i < count.value; i++) {
      const r = type.decode(data, p);
      if (r.offset < 0) throw new Error('truncated Avro block');
      records.push(r.value as T);
      p = r.offset;
    }
    pos = start + size.value;
    if (!buf.subarray(pos, pos + 16).equals(header.sync)) throw new Error('Avro sync marker mismatch');
    pos += 16;
  }
  return { schema: header.schema, metadata: header.metadata, codec: header.codec, records };
}

function decompress(codec: string, data: Buffer): Buffer {
  if (codec === 'null') return data;
  if (codec === 'deflate') return inflateRawSync(data);
  if (codec === 'snappy') {
    // Avro snappy blocks carry a 4-byte CRC32 after the compressed data.
    const input = data.subarray(0, data.length - 4);
    const out = new Uint8Array(readVarint(input));
    snappyUncompress(input, out);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  }
  throw new Error(`unsupported Avro codec: ${codec}`);
}

function readVarint(b: Uint8Array): number {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < b.length; i++) {
    result += (b[i] & 0x7f) * 2 ** shift;
    if (!(b[i] & 0x80)) break;
    shift += 7;
  }
  return result;
}

function zigzag(n: number): Buffer {
  const bytes: number[] = [];
  let v = n >= 0 ? n * 2 : -n * 2 - 1;
  while (v >= 0x80) {
    bytes.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

function readZigzag(buf: Buffer, offset: number): { value: number; offset: number } {
  let v = 0;
  let mult = 1;
  let pos = offset;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated Avro block header');
    const b = buf[pos++];
    v += (b & 0x7f) * mult;
    if (!(b & 0x80)) break;
    mult *= 0x80;
  }
  return { value: v % 2 === 0 ? v / 2 : -(v + 1) / 2, offset: pos };
}

function randomSync(): Buffer {
  return randomBytes(16);
}

// ---- reading by field id: names differ between writers and versions ----

interface FieldInfo {
  name: string;
  schema: any;
}

/** field-id -> {avro name, non-null branch schema} for a record schema. */
export function byId(recordSchema: any): Map<number, FieldInfo> {
  const out = new Map<number, FieldInfo>();
  for (const f of recordSchema?.fields ?? []) {
    const branch = Array.isArray(f.type) ? f.type.find((t: unknown) => t !== 'null') : f.type;
    if (f['field-id'] !== undefined) out.set(Number(f['field-id']), { name: f.name, schema: branch });
  }
  return out;
}

export function fieldValue(fields: Map<number, FieldInfo>, record: any, id: number): any {
  const f = fields.get(id);
  return f && record ? record[f.name] : undefined;
}

// ---- Iceberg type -> Avro schema (Appendix A), for the typed partition tuple ----

/**
 * Avro names must match [A-Za-z_][A-Za-z0-9_]*; partition field names need not.
 * Same escaping as the reference implementation (`_x` + hex code), so the
 * field-id attribute, not the name, is what identifies the field on read.
 */
export function sanitizeAvroName(name: string): string {
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i];
    const ok = /[A-Za-z_]/.test(c) || (i > 0 && /[0-9]/.test(c));
    out += ok ? c : /[0-9]/.test(c) ? `_${c}` : `_x${c.charCodeAt(0).toString(16).toUpperCase()}`;
  }
  return out;
}
