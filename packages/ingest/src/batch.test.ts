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

describe('the scan reads exactly what JSON.parse reads', () => {
  // Seeded, so a failing case can be replayed.
  let seed = 20261123;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
  const space = () => pick(['', '', '', ' ', '\n  ', '\t', '\r\n']);
  const scalars = ['0', '-0', '7', '-12', '3.25', '1e5', '-1.5E-3', '2e+2', '12345678901234567890', '"a"', '""', '"a,b]}"',
    '"\\"q\\\\"', '"\\u00e9\\n\\t\\/"', '"é ü 😀"', 'true', 'false', 'null'];
  const value = (depth: number): string => {
    const r = random();
    if (depth > 3 || r < 0.45) return pick(scalars);
    if (r < 0.75) {
      const members = Array.from({ length: Math.floor(random() * 4) }, (_, i) => `${space()}"k${i}"${space()}:${space()}${value(depth + 1)}${space()}`);
      return `{${members.join(',')}${members.length ? '' : space()}}`;
    }
    const items = Array.from({ length: Math.floor(random() * 4) }, () => `${space()}${value(depth + 1)}${space()}`);
    return `[${items.join(',')}]`;
  };
  // What breaks JSON, or nearly does: every rule of the grammar is crossed by one of these.
  const breakers = ['{', '}', '[', ']', ',', ':', '"', '\\', '\\u12', '\\x', '-', '.', 'e', '+', '0', '01', '1.', '.5', 'tru', 'nul', 'fals',
    'True', 'NaN', 'Infinity', ' ', '\n', '\u000b', '\u00a0', '\u0001', '\t', '\ufeff', "'a'", 'x', '/', '//', '/*', '1_0', '0x1'];
  // By code point: a body decoded from UTF-8 never holds half a surrogate pair.
  const mutate = (text: string): string => {
    const cps = Array.from(text);
    const at = Math.floor(random() * (cps.length + 1));
    const r = random();
    if (r < 0.4) cps.splice(at, 0, pick(breakers));
    else if (r < 0.7) cps.splice(at, 1 + Math.floor(random() * 3));
    else cps.splice(at, 1, pick(breakers));
    return cps.join('');
  };
  const verdict = (text: string): unknown[] | 'invalid json' | string => {
    try {
      const v = JSON.parse(text);
      return Array.isArray(v) ? v : v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v;
    } catch {
      return 'invalid json';
    }
  };

  test('on thousands of arrays, valid and broken', () => {
    let valid = 0;
    let refused = 0;
    for (let n = 0; n < 6000; n++) {
      const items = Array.from({ length: Math.floor(random() * 5) }, () => `${space()}${value(0)}${space()}`);
      let text = `${space()}[${items.join(',')}${items.length ? '' : space()}]${space()}`;
      if (n % 3 !== 0) for (let m = Math.floor(random() * 3); m >= 0; m--) text = mutate(text);
      if (n % 97 === 0) text = pick(scalars); // not an array at all
      const want = verdict(text);
      const got = parseBatch(text);
      if (Array.isArray(want)) {
        valid++;
        if (!got.ok) throw new Error(`refused ${JSON.stringify(text)}: ${got.reason}`);
        expect(got.elements.map((e) => JSON.parse(e.raw))).toEqual(want);
        expect(got.elements.every((e) => !/[\n\r]/.test(e.raw))).toBe(true);
        const sent = readSendBatch(Buffer.from(text));
        if (!sent.ok) throw new Error(`send refused ${JSON.stringify(text)}`);
        const lines = sent.ndjson.toString('utf8').split('\n').slice(0, -1);
        expect(lines.map((l) => JSON.parse(l))).toEqual(want.filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v)));
      } else {
        refused++;
        if (got.ok) throw new Error(`accepted ${JSON.stringify(text)}, which JSON.parse reads as ${want}`);
        expect(got.got).toBe(want);
      }
    }
    // Both sides of the line were well exercised.
    expect(valid).toBeGreaterThan(1500);
    expect(refused).toBeGreaterThan(1500);
  });

  test('deep nesting is read without recursion', () => {
    const deep = `[${'['.repeat(100_000)}${']'.repeat(100_000)},{"a":1}]`;
    const r = readSendBatch(Buffer.from(deep));
    expect(r).toMatchObject({ ok: true, count: 2, objects: 1 });
    expect(r.ok && r.ndjson.toString()).toBe('{"a":1}\n');
  });
});
