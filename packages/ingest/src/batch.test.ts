import { parseBatch, readSendBatch } from './batch';

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

describe('readSendBatch', () => {
  const ndjson = (body: string | Buffer) => {
    const r = readSendBatch(Buffer.isBuffer(body) ? body : Buffer.from(body));
    if (!r.ok) throw new Error(r.reason);
    return { ...r, ndjson: r.ndjson.toString('utf8') };
  };

  test('compact bodies: the objects, byte for byte, one per line', () => {
    expect(ndjson('[{"id":12345678901234567890,"v":1.50},{"s":"a,b]},{\\"q"},{"u":"\\u00e9","é":"ü"}]')).toEqual({
      ok: true, count: 3, objects: 3, others: [],
      ndjson: '{"id":12345678901234567890,"v":1.50}\n{"s":"a,b]},{\\"q"}\n{"u":"\\u00e9","é":"ü"}\n',
    });
  });

  test('spaces, line breaks and non-objects between objects; pretty-printed objects become one line', () => {
    const r = ndjson('[ {"a":1} ,\n 7, {"b":[1,{"c":2}]},"x",{"d":\n  "x  y"},{"e":null}, [1] ]');
    expect(r.ndjson).toBe('{"a":1}\n{"b":[1,{"c":2}]}\n{"d":"x  y"}\n{"e":null}\n');
    expect(r).toMatchObject({ count: 7, objects: 4, others: [{ index: 1, got: 'number' }, { index: 3, got: 'string' }, { index: 6, got: 'array' }] });
  });

  test('no objects: nothing to store', () => {
    expect(ndjson('[1, null, true]')).toMatchObject({ count: 3, objects: 0, ndjson: '', others: [{ got: 'number' }, { got: 'null' }, { got: 'boolean' }] });
    expect(ndjson('[]')).toMatchObject({ count: 0, objects: 0, ndjson: '' });
  });

  test('refused: not UTF-8, not JSON, not an array', () => {
    expect(readSendBatch(Buffer.from([0x5b, 0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d, 0x5d]))).toMatchObject({ ok: false, got: 'invalid json', reason: expect.stringMatching(/UTF-8/) });
    expect(readSendBatch(Buffer.from('[{"a":1},]'))).toMatchObject({ ok: false, got: 'invalid json' });
    expect(readSendBatch(Buffer.from('{"a":1}'))).toMatchObject({ ok: false, got: 'object' });
  });
});
