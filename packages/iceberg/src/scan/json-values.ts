import type { ParsedPrimitive } from '../metadata/types.js';
import { requirePrimitive } from '../files/types.js';
import type { IcebergValue } from '../files/values.js';

// The spec's JSON single-value serialization (Appendix C), in which the REST
// catalog's scan planning answers partition values and column bounds: dates,
// times and timestamps as ISO text, decimals as text with their scale, bytes
// as uppercase hex. Longs stay bigints so stringifyJson writes them exactly.

const DAY_MS = 86_400_000;

const pad = (n: number | bigint, width: number) => String(n).padStart(width, '0');

/** Date and time of day of `units` since the epoch, `perSecond` units to a second: "2017-11-16T22:31:08.123456". */
function dateTime(units: bigint, perSecond: bigint, digits: number): string {
  const seconds = units >= 0n ? units / perSecond : -((-units + perSecond - 1n) / perSecond);
  const fraction = units - seconds * perSecond;
  const iso = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${iso}.${pad(fraction, digits)}`;
}

function decimalText(unscaled: bigint, scale: number): string {
  if (scale === 0) return unscaled.toString();
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** One value of `type` (internal representation, values.ts) as its JSON single value. */
export function toJsonValue(type: string | ParsedPrimitive, v: IcebergValue): boolean | number | bigint | string {
  const p = typeof type === 'string' ? requirePrimitive(type) : type;
  switch (p.kind) {
    case 'boolean': return v as boolean;
    case 'int': case 'float': case 'double': return v as number;
    case 'long': return v as bigint;
    case 'date': return new Date((v as number) * DAY_MS).toISOString().slice(0, 10);
    case 'time': {
      const micros = v as bigint;
      const s = micros / 1_000_000n;
      return `${pad(s / 3600n, 2)}:${pad((s / 60n) % 60n, 2)}:${pad(s % 60n, 2)}.${pad(micros % 1_000_000n, 6)}`;
    }
    case 'timestamp': return dateTime(v as bigint, 1_000_000n, 6);
    case 'timestamptz': return `${dateTime(v as bigint, 1_000_000n, 6)}+00:00`;
    case 'timestamp_ns': return dateTime(v as bigint, 1_000_000_000n, 9);
    case 'timestamptz_ns': return `${dateTime(v as bigint, 1_000_000_000n, 9)}+00:00`;
    case 'decimal': return decimalText(v as bigint, p.scale ?? 0);
    case 'string': case 'uuid': return v as string;
    default: return Buffer.from(v as Uint8Array).toString('hex').toUpperCase();
  }
}
