import { parseJson, stringifyJson, JsonSyntaxError } from './json';

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
});
