import { DEFAULT_MAX_JSON_DEPTH, parseJson, stringifyJson, JsonSyntaxError } from './json';

describe('lossless JSON', () => {
  it('keeps integers beyond 2^53 exact as bigint and small ones as numbers', () => {
    const v = parseJson('{"a": 9223372036854775807, "b": 9007199254740993, "c": 42, "d": -9007199254740993, "e": 1.5e3}');
    expect(v).toEqual({ a: 9223372036854775807n, b: 9007199254740993n, c: 42, d: -9007199254740993n, e: 1500 });
    expect(stringifyJson(v)).toBe('{"a":9223372036854775807,"b":9007199254740993,"c":42,"d":-9007199254740993,"e":1500}');
  });

  it('parses strings with escapes, nested arrays, literals and whitespace', () => {
    const text = ' { "s" : "a\\"b\\u00e9\\n" , "arr" : [ true , false , null , [ ] , { } ] } ';
    expect(parseJson(text)).toEqual(JSON.parse(text));
    expect(stringifyJson(parseJson(text))).toBe(JSON.stringify(JSON.parse(text)));
  });

  it('keeps a "__proto__" key as data', () => {
    const v = parseJson('{"__proto__": {"x": 1}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__']);
    expect(stringifyJson(v)).toBe('{"__proto__":{"x":1}}');
  });

  it.each(['', '{', '{"a" 1}', '[1,]', '01', '"\u0001"', 'nul', '{"a":1} x', '"abc'])('rejects %j', (text) => {
    expect(() => parseJson(text)).toThrow(JsonSyntaxError);
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => stringifyJson({ a: Number.NaN })).toThrow(TypeError);
    expect(() => stringifyJson({ a: () => 1 })).toThrow(TypeError);
    expect(stringifyJson({ a: undefined, b: [undefined] })).toBe('{"b":[null]}');
  });

  it('bounds nesting instead of running out of stack', () => {
    const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    expect(() => parseJson(nested(DEFAULT_MAX_JSON_DEPTH))).not.toThrow();
    expect(() => parseJson(nested(DEFAULT_MAX_JSON_DEPTH + 1))).toThrow(/Nesting deeper than 1000 levels/);
    // Far past where the recursion used to overflow the stack (a RangeError, a 500 in the catalog).
    expect(() => parseJson(nested(200_000))).toThrow(JsonSyntaxError);
    expect(() => parseJson(objects(257), { maxDepth: 256 })).toThrow(JsonSyntaxError);
    expect(parseJson(objects(256), { maxDepth: 256 })).toBeDefined();
    // Siblings do not add up: depth is nesting, not count.
    expect(parseJson(`[${Array(5000).fill('[[]]').join(',')}]`, { maxDepth: 3 })).toHaveLength(5000);
  });
});
