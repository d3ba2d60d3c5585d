import { parseBatch } from './batch';

describe('parseBatch', () => {
  test('elements keep their own text: big integers, number spellings, unicode escapes', () => {
    const r = parseBatch('[ {"id": 12345678901234567890, "v": 1.50}, {"s":"a,b]}\\"q"} ,{"u":"\\u00e9"} ]');
    expect(r).toEqual({ ok: true, elements: [
      { kind: 'object', raw: '{"id": 12345678901234567890, "v": 1.50}' },
      { kind: 'object', raw: '{"s":"a,b]}\\"q"}' },
      { kind: 'object', raw: '{"u":"\\u00e9"}' },
    ] });
  });

  test('non-objects are told apart; nested arrays and objects stay whole', () => {
    const r = parseBatch('[1, "x", null, true, [1,[2]], {"a":[1,{"b":2}]}]');
    expect(r.ok && r.elements.map((e) => [e.kind, e.raw])).toEqual([
      ['number', '1'], ['string', '"x"'], ['null', 'null'], ['boolean', 'true'], ['array', '[1,[2]]'], ['object', '{"a":[1,{"b":2}]}'],
    ]);
  });

  test('a pretty-printed element becomes one line, its strings untouched', () => {
    const r = parseBatch('[\n  {\n    "a": "x  y",\n    "b": 2\n  }\n]');
    expect(r.ok && r.elements[0].raw).toBe('{"a":"x  y","b":2}');
  });

  test('an empty array, a non-array and invalid JSON', () => {
    expect(parseBatch('[]')).toEqual({ ok: true, elements: [] });
    expect(parseBatch('{"a":1}')).toMatchObject({ ok: false, got: 'object' });
    expect(parseBatch('[1,')).toMatchObject({ ok: false, got: 'invalid json' });
  });
});
