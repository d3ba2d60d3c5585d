// Iceberg values in one in-memory representation, and the spec's binary
// single-value serialization (Appendix D) used for bounds and partition summaries.
//
// Representation (what readers of this module get back):
//   boolean -> boolean; int, date -> number (date = days since epoch);
//   long, time, timestamp[tz][_ns] -> bigint (micros / nanos);
//   float, double -> number; decimal(P,S) -> bigint unscaled value;
//   string -> string; uuid -> lowercase canonical string; fixed, binary -> Uint8Array.
import type { ParsedPrimitive } from '../metadata/types.js';
import { requirePrimitive } from './types.js';

export type IcebergValue = boolean | number | bigint | string | Uint8Array;

const DAY_MS = 86_400_000;
const DAY_MICROS = 86_400_000_000n;
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * Converts a caller's value to the representation above. Accepts the obvious
 * alternatives (Date for dates/timestamps, ISO strings, numbers for longs,
 * decimal strings) so rows from JSON can be written without a mapping layer.
 */
export function toInternal(type: string | ParsedPrimitive, v: unknown): IcebergValue | null {
  if (v === null || v === undefined) return null;
  const p = typeof type === 'string' ? requirePrimitive(type) : type;
  switch (p.kind) {
    case 'boolean':
      if (typeof v !== 'boolean') throw new TypeError(`expected boolean, got ${typeof v}`);
      return v;
    case 'int':
      return toInt32(v);
    case 'date':
      if (v instanceof Date) return Math.floor(v.getTime() / DAY_MS);
      if (typeof v === 'string') {
        const days = Math.floor(Date.parse(`${v.slice(0, 10)}T00:00:00Z`) / DAY_MS);
        if (Number.isNaN(days)) throw new TypeError(`invalid date ${v}`);
        return days;
      }
      return toInt32(v);
    case 'long':
      return toInt64(v);
    case 'time': {
      const micros = typeof v === 'string' ? parseTimeMicros(v) : toInt64(v);
      // A time of day: 00:00 up to the end of the day, nothing a reader's time type cannot hold.
      if (micros < 0n || micros > DAY_MICROS) throw new RangeError(`time ${String(v)} is not within a day`);
      return micros;
    }
    case 'timestamp': case 'timestamptz':
      if (v instanceof Date) return BigInt(v.getTime()) * 1000n;
      if (typeof v === 'string') return parseTimestamp(v, p.kind === 'timestamptz', 6);
      return toInt64(v);
    case 'timestamp_ns': case 'timestamptz_ns':
      if (v instanceof Date) return BigInt(v.getTime()) * 1_000_000n;
      if (typeof v === 'string') return parseTimestamp(v, p.kind === 'timestamptz_ns', 9);
      return toInt64(v);
    case 'float': case 'double':
      if (typeof v !== 'number') throw new TypeError(`expected number, got ${typeof v}`);
      return v;
    case 'decimal': {
      const unscaled = toUnscaled(v, p.scale!);
      if ((unscaled < 0n ? -unscaled : unscaled) >= 10n ** BigInt(p.precision!)) throw new RangeError(`decimal ${String(v)} exceeds precision ${p.precision}`);
      return unscaled;
    }
    case 'string':
      if (typeof v !== 'string') throw new TypeError(`expected string, got ${typeof v}`);
      return v;
    case 'uuid':
      if (v instanceof Uint8Array) return uuidFromBytes(v);
      if (typeof v === 'string' && /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v)) {
        return uuidFromBytes(hexBytes(v.replace(/-/g, '')));
      }
      throw new TypeError(`expected uuid, got ${String(v)}`);
    case 'fixed': case 'binary': case 'geometry': case 'geography':
      if (!(v instanceof Uint8Array)) throw new TypeError(`expected Uint8Array, got ${typeof v}`);
      if (p.kind === 'fixed' && v.length !== p.length) throw new RangeError(`fixed[${p.length}] got ${v.length} bytes`);
      return v;
    default:
      throw new Error(`cannot convert values of type ${p.kind}`);
  }
}

function toInt32(v: unknown): number {
  const n = typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < -(2 ** 31) || n >= 2 ** 31) {
    throw new RangeError(`expected 32-bit integer, got ${String(v)}`);
  }
  return n;
}

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

function toInt64(v: unknown): bigint {
  // Compared, not BigInt.asIntN'd: that allocates, and every long a roll writes comes through here.
  if (typeof v === 'bigint') return v >= MIN_INT64 && v <= MAX_INT64 ? v : fail();
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return toInt64(BigInt(v));
  return fail();
  function fail(): never {
    throw new RangeError(`expected 64-bit integer, got ${String(v)}`);
  }
}

function toUnscaled(v: unknown, scale: number): bigint {
  if (typeof v === 'bigint') return v; // already unscaled
  if (typeof v === 'number') return BigInt(Math.round(v * 10 ** scale));
  if (typeof v === 'string') {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(v.trim());
    if (!m) throw new TypeError(`invalid decimal ${v}`);
    const frac = (m[3] ?? '').padEnd(scale, '0');
    if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) throw new RangeError(`decimal ${v} exceeds scale ${scale}`);
    const digits = BigInt((m[2] || '0') + frac.slice(0, scale));
    return m[1] === '-' ? -digits : digits;
  }
  throw new TypeError(`expected decimal, got ${typeof v}`);
}

function parseTimeMicros(s: string): bigint {
  const m = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/.exec(s);
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59) throw new TypeError(`invalid time ${s}`);
  const secs = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
  return BigInt(secs) * 1_000_000n + BigInt((m[4] ?? '').padEnd(6, '0'));
}

/**
 * The form nearly every producer writes (`toISOString()` and its kin,
 * `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`), read by position: this runs for every
 * timestamp a sink rolls, and a regular expression with seven groups plus
 * Date.parse cost more than the rest of mapping the row. Anything else is
 * undefined and takes the general path.
 */
function parseCanonicalUtc(s: string, digits: number): bigint | undefined {
  const n = s.length;
  if (n < 20 || n > 30 || s.charCodeAt(n - 1) !== 0x5a /* Z */) return undefined;
  if (s.charCodeAt(4) !== 0x2d || s.charCodeAt(7) !== 0x2d || s.charCodeAt(10) !== 0x54 || s.charCodeAt(13) !== 0x3a || s.charCodeAt(16) !== 0x3a) return undefined;
  const century = twoDigitsAt(s, 0), yy = twoDigitsAt(s, 2), mo = twoDigitsAt(s, 5), d = twoDigitsAt(s, 8);
  const h = twoDigitsAt(s, 11), mi = twoDigitsAt(s, 14), sec = twoDigitsAt(s, 17);
  // Anything not a digit (-1) takes the general path.
  if ((century | yy | mo | d | h | mi | sec) < 0 || h > 23 || mi > 59 || sec > 59) return undefined;
  let frac = 0;
  if (n > 20) {
    const places = n - 21;
    if (s.charCodeAt(19) !== 0x2e /* . */ || places < 1) return undefined;
    const kept = places < digits ? places : digits;
    frac = digitsAt(s, 20, kept);
    if (frac < 0 || (places > kept && digitsAt(s, 20 + kept, places - kept) < 0)) return undefined;
    frac *= 10 ** (digits - kept);
  }
  const ms = dayMillis(s, century * 100 + yy, mo, d) + h * 3_600_000 + mi * 60_000 + sec * 1000;
  // Micros of years 1700-2255 are exact as doubles: one BigInt, not three.
  if (digits === 6 && Math.abs(ms) < 9e12) return BigInt(ms * 1000 + frac);
  return BigInt(ms) * 10n ** BigInt(digits - 3) + BigInt(frac);
}

/** The last day read and its epoch millis: a batch's timestamps mostly fall on one day. */
let lastDayKey = -1;
let lastDayMs = 0;

function dayMillis(s: string, y: number, mo: number, d: number): number {
  const key = y * 10_000 + mo * 100 + d;
  if (key !== lastDayKey) {
    requireRealDate(s, y, mo, d);
    lastDayMs = daysFromCivil(y, mo, d) * DAY_MS;
    lastDayKey = key;
  }
  return lastDayMs;
}

/** The two-digit number at s[at], or -1 if either is not a digit. */
function twoDigitsAt(s: string, at: number): number {
  const a = s.charCodeAt(at) - 48;
  const b = s.charCodeAt(at + 1) - 48;
  return a >>> 0 > 9 || b >>> 0 > 9 ? -1 : a * 10 + b;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (the civil-from-days inverse): a tenth of Date.UTC's cost. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** The decimal number in s[at, at+count), or -1 if any of it is not a digit. */
function digitsAt(s: string, at: number, count: number): number {
  let v = 0;
  for (let i = at; i < at + count; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Date.parse and Date.UTC roll 2026-02-30 over to March 2; a day the month does not have is refused instead. */
function requireRealDate(s: string, y: number, mo: number, d: number): void {
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = mo === 2 ? (leap ? 29 : 28) : mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
  if (mo < 1 || mo > 12 || d < 1 || d > days) throw new RangeError(`invalid timestamp ${s}`);
}

/** ISO timestamp to micros (digits=6) or nanos (digits=9); Date.parse alone would drop sub-millisecond digits. */
function parseTimestamp(s: string, withZone: boolean, digits: number): bigint {
  const canonical = parseCanonicalUtc(s, digits);
  if (canonical !== undefined) return canonical;
  const date = /^\s*(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (date) requireRealDate(s, Number(date[1]), Number(date[2]), Number(date[3]));
  const m = /^(.*?T\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})?$/.exec(s.trim().replace(' ', 'T'));
  if (!m) throw new TypeError(`invalid timestamp ${s}`);
  const zone = m[3] ?? 'Z';
  if (!withZone && m[3] && m[3] !== 'Z' && !/^[+-]00:?00$/.test(m[3])) {
    throw new RangeError(`timestamp without zone must not carry an offset: ${s}`);
  }
  const ms = Date.parse(`${m[1]}${zone}`);
  if (Number.isNaN(ms)) throw new TypeError(`invalid timestamp ${s}`);
  const frac = BigInt((m[2] ?? '').slice(0, digits).padEnd(digits, '0'));
  return BigInt(ms) * 10n ** BigInt(digits - 3) + frac;
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function uuidFromBytes(b: Uint8Array): string {
  if (b.length !== 16) throw new RangeError('uuid must be 16 bytes');
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function uuidToBytes(s: string): Uint8Array {
  return hexBytes(s.replace(/-/g, ''));
}

/** Two's complement big-endian, minimum bytes (Appendix D decimal); `size` pads to a fixed width. */
export function bigintToBytes(v: bigint, size?: number): Uint8Array {
  const bytes: number[] = [];
  let x = v;
  for (;;) {
    const byte = Number(x & 0xffn);
    bytes.unshift(byte);
    x >>= 8n;
    if (size !== undefined) {
      if (bytes.length >= size) break;
    } else if ((x === 0n && !(byte & 0x80)) || (x === -1n && byte & 0x80)) {
      break;
    }
  }
  return new Uint8Array(bytes);
}

export function bytesToBigint(b: Uint8Array): bigint {
  let x = 0n;
  for (const byte of b) x = (x << 8n) | BigInt(byte);
  return b.length && b[0] & 0x80 ? x - (1n << BigInt(8 * b.length)) : x;
}

/** Appendix D binary single-value serialization. */
export function toBinary(type: string | ParsedPrimitive, value: IcebergValue): Uint8Array {
  const p = typeof type === 'string' ? requirePrimitive(type) : type;
  const v = toInternal(p, value);
  if (v === null) throw new TypeError('null has no single-value serialization');
  const fixed = (n: number, set: (d: DataView) => void) => {
    const out = new Uint8Array(n);
    set(new DataView(out.buffer));
    return out;
  };
  switch (p.kind) {
    case 'boolean': return new Uint8Array([v ? 1 : 0]);
    case 'int': case 'date': return fixed(4, (d) => d.setInt32(0, v as number, true));
    case 'long': case 'time': case 'timestamp': case 'timestamptz': case 'timestamp_ns': case 'timestamptz_ns':
      return fixed(8, (d) => d.setBigInt64(0, v as bigint, true));
    case 'float': return fixed(4, (d) => d.setFloat32(0, v as number, true));
    case 'double': return fixed(8, (d) => d.setFloat64(0, v as number, true));
    case 'string': return utf8.encode(v as string);
    case 'uuid': return uuidToBytes(v as string);
    case 'decimal': return bigintToBytes(v as bigint);
    default: return v as Uint8Array;
  }
}

/** Inverse of toBinary. */
export function fromBinary(type: string | ParsedPrimitive, b: Uint8Array): IcebergValue {
  const p = typeof type === 'string' ? requirePrimitive(type) : type;
  const d = new DataView(b.buffer, b.byteOffset, b.byteLength);
  switch (p.kind) {
    case 'boolean': return b[0] !== 0;
    case 'int': case 'date': return d.getInt32(0, true);
    case 'long': case 'time': case 'timestamp': case 'timestamptz': case 'timestamp_ns': case 'timestamptz_ns':
      return d.getBigInt64(0, true);
    case 'float': return d.getFloat32(0, true);
    case 'double': return d.getFloat64(0, true);
    case 'string': return utf8Decoder.decode(b);
    case 'uuid': return uuidFromBytes(b);
    case 'decimal': return bytesToBigint(b);
    default: return new Uint8Array(b);
  }
}

/**
 * Orders two non-null internal values of one type the way Iceberg bounds do:
 * strings by code point (UTF-8 byte order, not JS UTF-16 order), bytes
 * unsigned lexicographically, -0.0 before +0.0.
 */
export function compareValues(a: IcebergValue, b: IcebergValue): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') {
    if (a === 0 && b === 0) return Object.is(a, -0) === Object.is(b, -0) ? 0 : Object.is(a, -0) ? -1 : 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Strings in UTF-8 byte order, which is code point order, without encoding
 * them (this runs for every value written). UTF-16 units order the same way
 * except that a surrogate (U+10000 and up) must sort above U+E000..U+FFFF.
 */
function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (x >= 0xe000 || y >= 0xe000)) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Default metrics mode of the reference implementation: truncate(16). */
export const DEFAULT_TRUNCATE_LENGTH = 16;

/** Lower bound of a string cut to `length` code points: any prefix is <= the value. */
export function truncateStringLower(s: string, length = DEFAULT_TRUNCATE_LENGTH): string {
  const cps = Array.from(s);
  return cps.length <= length ? s : cps.slice(0, length).join('');
}

/**
 * Upper bound of a string cut to `length` code points: the prefix with its last
 * incrementable code point bumped by one; undefined when none can be (the
 * bound is then omitted, which the spec allows).
 */
export function truncateStringUpper(s: string, length = DEFAULT_TRUNCATE_LENGTH): string | undefined {
  const cps = Array.from(s);
  if (cps.length <= length) return s;
  const prefix = cps.slice(0, length).map((c) => c.codePointAt(0)!);
  for (let i = prefix.length - 1; i >= 0; i--) {
    let next = prefix[i] + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000; // skip surrogates: not valid code points
    if (next > 0x10ffff) continue;
    return String.fromCodePoint(...prefix.slice(0, i), next);
  }
  return undefined;
}

export function truncateBinaryLower(b: Uint8Array, length = DEFAULT_TRUNCATE_LENGTH): Uint8Array {
  return b.length <= length ? b : b.slice(0, length);
}

export function truncateBinaryUpper(b: Uint8Array, length = DEFAULT_TRUNCATE_LENGTH): Uint8Array | undefined {
  if (b.length <= length) return b;
  const prefix = b.slice(0, length);
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i] < 0xff) {
      const out = prefix.slice(0, i + 1);
      out[i] += 1;
      return out;
    }
  }
  return undefined;
}
