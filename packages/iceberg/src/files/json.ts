// JSON with exact 64-bit integers. Snapshot ids are random 63-bit values, so a
// bigint must reach the wire as a bare JSON number, never via a lossy double.
// (Node 20 has no JSON.rawJSON.)
const MARK = '\u0000bigint:';

export function stringifyJson(value: unknown, space?: number): string {
  const text = JSON.stringify(
    value,
    (_key, v) => {
      if (typeof v === 'bigint') return `${MARK}${v}`;
      if (v instanceof Uint8Array) return Array.from(v);
      if (v instanceof Map) return Object.fromEntries(v);
      return v;
    },
    space,
  );
  return text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}
