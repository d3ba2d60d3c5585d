import { decimalRequiredBytes, requirePrimitive } from './types.js';
import {
  compareValues, fromBinary, toBinary, toInternal, truncateBinaryUpper, truncateStringLower, truncateStringUpper,
} from './values.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('Appendix D binary single-value serialization', () => {
  test.each([
    ['boolean', true, '01'],
    ['boolean', false, '00'],
    ['int', 1, '01000000'],
    ['int', -2, 'feffffff'],
    ['long', 2n ** 62n + 1n, '0100000000000040'],
    ['float', 1, '0000803f'],
    ['double', -2.5, '00000000000004c0'],
    ['date', '2024-01-01', '0b4d0000'], // 19723 = 0x4d0b days, 4-byte little-endian
    ['time', '00:00:01.5', '60e3160000000000'], // 1_500_000 micros
    ['timestamp', '1970-01-01T00:00:00.000001', '0100000000000000'],
    ['timestamptz', new Date(1000), '40420f0000000000'],
    ['timestamp_ns', '1970-01-01T00:00:00.000000001', '0100000000000000'],
    ['string', 'iceberg', Buffer.from('iceberg').toString('hex')],
    ['uuid', 'f79c3e09-677c-4bbd-a479-3f349cb785e7', 'f79c3e09677c4bbda4793f349cb785e7'], // big-endian, as written
    ['fixed[3]', new Uint8Array([1, 2, 3]), '010203'],
    ['binary', new Uint8Array([0xff]), 'ff'],
    // decimal: unscaled two's complement big-endian in the minimum number of bytes
    ['decimal(9,2)', '14.20', '058c'],
    ['decimal(9,2)', '-0.01', 'ff'],
    ['decimal(38,0)', 128n, '0080'],
    ['decimal(5,0)', 0n, '00'],
  ])('%s %p', (type, value, expected) => {
    const b = toBinary(type, value as any);
    expect(hex(b)).toBe(expected);
    expect(fromBinary(type, b)).toEqual(toInternal(type, value));
  });

  test('decimal sizes in fixed columns use the minimum bytes for the precision', () => {
    expect([1, 2, 9, 10, 18, 19, 38].map(decimalRequiredBytes)).toEqual([1, 1, 4, 5, 8, 9, 16]);
    expect(requirePrimitive('decimal( 10 , 2 )')).toEqual({ kind: 'decimal', precision: 10, scale: 2 });
  });
});

describe('bounds ordering and truncation', () => {
  test('-0.0 sorts before +0.0; strings by code point not UTF-16 unit', () => {
    expect(compareValues(-0, 0)).toBeLessThan(0);
    expect(compareValues('\u{1F600}', '\uFFFF')).toBeGreaterThan(0); // JS '<' says the opposite
    // Strings order as their UTF-8 bytes, across ASCII, BMP and supplementary characters.
    const alphabet = ['a', 'z', '\u00e9', '\u0800', '\ud7ff', '\ue000', '\uffff', '\u{10000}', '\u{1F600}'];
    const enc = new TextEncoder();
    const byBytes = (x: string, y: string) => Buffer.compare(Buffer.from(enc.encode(x)), Buffer.from(enc.encode(y)));
    for (const x of alphabet) for (const y of alphabet) for (const z of ['', 'a', '\u{1F600}']) {
      expect(Math.sign(compareValues(x + z, y))).toBe(byBytes(x + z, y));
    }
  });

  test('string bounds truncate on code points and round the upper bound up', () => {
    const s = 'a'.repeat(15) + '\u{1F600}xyz';
    expect(truncateStringLower(s)).toBe('a'.repeat(15) + '\u{1F600}');
    expect(truncateStringUpper(s)).toBe('a'.repeat(15) + '\u{1F601}');
    expect(truncateStringUpper('short')).toBe('short');
    expect(truncateBinaryUpper(new Uint8Array([1, 0xff, 9]), 2)).toEqual(new Uint8Array([2]));
    expect(truncateBinaryUpper(new Uint8Array([0xff, 0xff, 9]), 2)).toBeUndefined();
  });
});

test('timestamps: the canonical UTC form and the general path agree; impossible dates are refused', () => {
  const general = (s: string) => toInternal('timestamptz', s.replace('Z', '+00:00'));
  for (const s of ['2026-11-23T07:58:08Z', '2026-11-23T07:58:08.1Z', '2026-11-23T07:58:08.123456Z', '1969-12-31T23:59:59.999999Z', '2024-02-29T00:00:00Z']) {
    expect(toInternal('timestamptz', s)).toBe(general(s));
  }
  expect(toInternal('timestamptz_ns', '2026-11-23T07:58:08.123456789Z')).toBe(1_795_420_688_123_456_789n);
  expect(toInternal('timestamptz', '0050-01-01T00:00:00Z')).toBe(general('0050-01-01T00:00:00Z'));
  expect(() => toInternal('timestamptz', '2026-02-30T00:00:00Z')).toThrow();
  expect(() => toInternal('timestamptz', '2026-13-01T00:00:00Z')).toThrow();
  // Digits past the unit are cut, not rounded; anything off the canonical shape is still read or refused as before.
  expect(toInternal('timestamptz', '2026-11-23T07:58:08.1234569Z')).toBe(general('2026-11-23T07:58:08.123456Z'));
  expect(toInternal('timestamptz', '2026-11-23T07:58:08.000001000Z')).toBe(1_795_420_688_000_001n);
  for (const bad of ['2026-11-23T07:58:08.Z', '2026-11-23T07:58:08.12a4Z', '2026-11-23T07:60:00Z', '2O26-11-23T07:58:08Z']) {
    expect(() => toInternal('timestamptz', bad)).toThrow();
  }
});

test('timestamps: the remembered day never carries over to another date', () => {
  // Same month and day, different years: the leap day exists in one only.
  expect(toInternal('timestamptz', '2024-02-29T12:00:00Z')).toBe(1_709_208_000_000_000n);
  expect(() => toInternal('timestamptz', '2023-02-29T12:00:00Z')).toThrow(/invalid timestamp/);
  expect(toInternal('timestamptz', '2024-02-29T13:00:00Z')).toBe(1_709_211_600_000_000n);
  // Back and forth across midnight.
  expect(toInternal('timestamptz', '2026-11-23T23:59:59.999999Z')).toBe(1_795_478_399_999_999n);
  expect(toInternal('timestamptz', '2026-11-24T00:00:00Z')).toBe(1_795_478_400_000_000n);
  expect(toInternal('timestamptz', '2026-11-23T00:00:00Z')).toBe(1_795_392_000_000_000n);
});
