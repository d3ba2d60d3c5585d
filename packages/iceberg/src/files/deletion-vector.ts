// Deletion vectors (v3, spec "Deletion Vectors"): a Puffin blob of type
// `deletion-vector-v1` naming the deleted row positions of one data file. The
// manifest entry gives the blob's offset and length in the Puffin file, so
// reading one needs only those bytes, not the Puffin footer.
//
// Blob: a 4-byte big-endian length of what follows up to the checksum, the
// magic D1 D3 39 64, the positions as a 64-bit Roaring bitmap in its portable
// serialization (an 8-byte little-endian count of 32-bit bitmaps, each a
// 4-byte little-endian key — the positions' high 32 bits — and a 32-bit
// Roaring bitmap in the portable format of the Roaring format spec), then a
// CRC-32 (big-endian) of the magic and the bitmap.
import { crc32 } from 'node:zlib';

const MAGIC = [0xd1, 0xd3, 0x39, 0x64];
const SERIAL_COOKIE_NO_RUNCONTAINER = 12346;
const SERIAL_COOKIE = 12347;
const NO_OFFSET_THRESHOLD = 4;
const ARRAY_MAX = 4096;

export class InvalidDeletionVector extends Error {
  constructor(message: string) {
    super(`deletion vector: ${message}`);
    this.name = 'InvalidDeletionVector';
  }
}

/** The deleted positions of a `deletion-vector-v1` blob, ascending. */
export function readDeletionVector(blob: Uint8Array): bigint[] {
  const b = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  if (b.length < 12) throw new InvalidDeletionVector('blob too short');
  const length = b.readUInt32BE(0);
  if (length + 8 !== b.length) throw new InvalidDeletionVector(`length ${length} does not match a ${b.length}-byte blob`);
  if (MAGIC.some((m, i) => b[4 + i] !== m)) throw new InvalidDeletionVector('bad magic');
  const body = b.subarray(4, 4 + length);
  if (crc32(body) !== b.readUInt32BE(4 + length)) throw new InvalidDeletionVector('checksum mismatch');
  const r = { buf: body, at: 4 };
  const count = take(r, 8).readBigUInt64LE(0);
  const out: bigint[] = [];
  for (let i = 0n; i < count; i++) {
    const high = BigInt(take(r, 4).readUInt32LE(0)) << 32n;
    for (const low of readBitmap32(r)) out.push(high | BigInt(low));
  }
  return out;
}

/** A `deletion-vector-v1` blob for `positions` (any order, no duplicates needed). */
export function writeDeletionVector(positions: Iterable<bigint>): Uint8Array {
  const byHigh = new Map<number, Set<number>>();
  for (const p of positions) {
    if (p < 0n || p >= 1n << 63n) throw new RangeError(`position ${p} out of range`);
    const high = Number(p >> 32n);
    let set = byHigh.get(high);
    if (!set) byHigh.set(high, (set = new Set()));
    set.add(Number(p & 0xffffffffn));
  }
  const parts: Buffer[] = [Buffer.from(MAGIC), u64(BigInt(byHigh.size))];
  for (const high of [...byHigh.keys()].sort((a, b) => a - b)) parts.push(u32(high), writeBitmap32([...byHigh.get(high)!].sort((a, b) => a - b)));
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return new Uint8Array(Buffer.concat([head, body, crc]));
}

function take(r: { buf: Buffer; at: number }, n: number): Buffer {
  if (r.at + n > r.buf.length) throw new InvalidDeletionVector('bitmap truncated');
  const out = r.buf.subarray(r.at, r.at + n);
  r.at += n;
  return out;
}

function readBitmap32(r: { buf: Buffer; at: number }): number[] {
  const cookie = take(r, 4).readUInt32LE(0);
  let size: number;
  let runs: Buffer | null = null;
  if ((cookie & 0xffff) === SERIAL_COOKIE) {
    size = (cookie >>> 16) + 1;
    runs = take(r, Math.ceil(size / 8));
  } else if (cookie === SERIAL_COOKIE_NO_RUNCONTAINER) size = take(r, 4).readUInt32LE(0);
  else throw new InvalidDeletionVector(`unknown cookie ${cookie}`);
  const header = take(r, 4 * size);
  if (!runs || size >= NO_OFFSET_THRESHOLD) take(r, 4 * size); // offsets: the containers follow in order anyway
  const out: number[] = [];
  for (let i = 0; i < size; i++) {
    const high = header.readUInt16LE(4 * i) << 16;
    const card = header.readUInt16LE(4 * i + 2) + 1;
    if (runs && runs[i >> 3] & (1 << (i & 7))) {
      const n = take(r, 2).readUInt16LE(0);
      const pairs = take(r, 4 * n);
      for (let j = 0; j < n; j++) {
        const start = pairs.readUInt16LE(4 * j);
        const len = pairs.readUInt16LE(4 * j + 2);
        for (let v = start; v <= start + len; v++) out.push((high | v) >>> 0);
      }
    } else if (card <= ARRAY_MAX) {
      const values = take(r, 2 * card);
      for (let j = 0; j < card; j++) out.push((high | values.readUInt16LE(2 * j)) >>> 0);
    } else {
      const words = take(r, 8192);
      for (let w = 0; w < 2048; w++) {
        const word = words.readUInt32LE(4 * w);
        for (let bit = 0; bit < 32; bit++) if (word & (1 << bit)) out.push((high | (w * 32 + bit)) >>> 0);
      }
    }
  }
  return out;
}

/** Array and bitmap containers only, no run containers: always valid, if not always smallest. */
function writeBitmap32(sorted: number[]): Buffer {
  const containers = new Map<number, number[]>();
  for (const v of sorted) {
    const key = v >>> 16;
    let c = containers.get(key);
    if (!c) containers.set(key, (c = []));
    c.push(v & 0xffff);
  }
  const keys = [...containers.keys()];
  const bodies = keys.map((k) => {
    const values = containers.get(k)!;
    if (values.length <= ARRAY_MAX) {
      const buf = Buffer.alloc(2 * values.length);
      values.forEach((v, j) => buf.writeUInt16LE(v, 2 * j));
      return buf;
    }
    const words = new Uint32Array(2048);
    for (const v of values) words[v >>> 5] |= 1 << (v & 31);
    return Buffer.from(words.buffer);
  });
  const header = Buffer.alloc(8 + 8 * keys.length);
  header.writeUInt32LE(SERIAL_COOKIE_NO_RUNCONTAINER, 0);
  header.writeUInt32LE(keys.length, 4);
  let offset = header.length;
  keys.forEach((k, i) => {
    header.writeUInt16LE(k, 8 + 4 * i);
    header.writeUInt16LE(containers.get(k)!.length - 1, 8 + 4 * i + 2);
  });
  keys.forEach((_, i) => {
    header.writeUInt32LE(offset, 8 + 4 * keys.length + 4 * i);
    offset += bodies[i].length;
  });
  return Buffer.concat([header, ...bodies]);
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};
