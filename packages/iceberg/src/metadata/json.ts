// Lossless JSON for Iceberg metadata.
//
// Iceberg writes 64-bit longs (snapshot ids, sequence numbers, row ids) as plain JSON
// numbers; Java snapshot ids are random 63-bit values, so most of them exceed 2^53 and
// `JSON.parse` would silently round them. Node 20 has no `JSON.parse` source-text
// access, so this module parses JSON itself: an integer literal that is not a safe JS
// integer becomes a `bigint` (exact), every other number stays a `number`. The writer
// prints bigints as bare digits, so a parse/stringify round trip keeps every value.
// Non-integer numbers are IEEE doubles, exactly as every Iceberg writer produces them.

export type JsonValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

export class JsonSyntaxError extends Error {
  constructor(message: string, readonly position: number) {
    super(`${message} at position ${position}`);
    this.name = 'JsonSyntaxError';
  }
}

/**
 * Deepest nesting `parseJson` reads unless told otherwise. The parser recurses
 * once per level, so a bound keeps hostile or broken input (a registered
 * metadata file, a request body) from running it out of stack; it sits well
 * above what a catalog accepts in a request (the HTTP edge's 256 levels, plus
 * the few levels metadata wraps around a schema) and well below the stack.
 */
export const DEFAULT_MAX_JSON_DEPTH = 1000;

export interface ParseJsonOptions {
  /** Deepest nesting of arrays and objects accepted; deeper input is a JsonSyntaxError. */
  maxDepth?: number;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const INTEGER = /^-?\d+$/;
// Characters that may appear unescaped inside a JSON string, found in one sweep.
const STRING_RUN = /[^"\\\u0000-\u001f]*/y;

/** Parses JSON text; unsafe integers come back as `bigint` so no digit is lost. */
export function parseJson(text: string, options: ParseJsonOptions = {}): JsonValue {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  let pos = 0;
  let depth = 0;

  const fail = (message: string): never => {
    throw new JsonSyntaxError(message, pos);
  };

  const skipWhitespace = () => {
    for (;;) {
      const c = text.charCodeAt(pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) pos++;
      else return;
    }
  };

  const parseString = (): string => {
    // pos is at the opening quote
    const start = pos;
    pos++;
    let simple = true;
    for (;;) {
      STRING_RUN.lastIndex = pos;
      STRING_RUN.exec(text);
      pos = STRING_RUN.lastIndex;
      const c = text[pos];
      if (c === '"') break;
      if (c === '\\') {
        simple = false;
        pos += text[pos + 1] === 'u' ? 6 : 2;
        continue;
      }
      if (c === undefined) fail('Unterminated string');
      fail('Control character in string');
    }
    pos++;
    // Escapes are rare in metadata; let the built-in parser decode them exactly.
    return simple ? text.slice(start + 1, pos - 1) : (JSON.parse(text.slice(start, pos)) as string);
  };

  const parseNumber = (): number | bigint => {
    NUMBER.lastIndex = pos;
    const m = NUMBER.exec(text);
    if (!m) return fail('Invalid number');
    pos = NUMBER.lastIndex;
    const literal = m[0];
    const value = Number(literal);
    if (INTEGER.test(literal) && !Number.isSafeInteger(value)) return BigInt(literal);
    return value;
  };

  const nest = () => {
    if (++depth > maxDepth) fail(`Nesting deeper than ${maxDepth} levels`);
  };

  const parseValue = (): JsonValue => {
    skipWhitespace();
    const c = text[pos];
    switch (c) {
      case '{': {
        nest();
        pos++;
        const obj: { [key: string]: JsonValue } = {};
        skipWhitespace();
        if (text[pos] === '}') {
          pos++;
          depth--;
          return obj;
        }
        for (;;) {
          skipWhitespace();
          if (text[pos] !== '"') fail('Expected object key');
          const key = parseString();
          skipWhitespace();
          if (text[pos] !== ':') fail("Expected ':'");
          pos++;
          setOwn(obj, key, parseValue());
          skipWhitespace();
          if (text[pos] === ',') {
            pos++;
            continue;
          }
          if (text[pos] === '}') {
            pos++;
            depth--;
            return obj;
          }
          fail("Expected ',' or '}'");
        }
      }
      case '[': {
        nest();
        pos++;
        const arr: JsonValue[] = [];
        skipWhitespace();
        if (text[pos] === ']') {
          pos++;
          depth--;
          return arr;
        }
        for (;;) {
          arr.push(parseValue());
          skipWhitespace();
          if (text[pos] === ',') {
            pos++;
            continue;
          }
          if (text[pos] === ']') {
            pos++;
            depth--;
            return arr;
          }
          fail("Expected ',' or ']'");
        }
      }
      case '"':
        return parseString();
      case 't':
        return literal('true', true);
      case 'f':
        return literal('false', false);
      case 'n':
        return literal('null', null);
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return parseNumber();
        return fail(c === undefined ? 'Unexpected end of input' : `Unexpected character '${c}'`);
    }
  };

  const literal = <T extends JsonValue>(word: string, value: T): T => {
    if (text.startsWith(word, pos)) {
      pos += word.length;
      return value;
    }
    return fail('Invalid literal');
  };

  const value = parseValue();
  skipWhitespace();
  if (pos !== text.length) fail('Unexpected trailing characters');
  return value;
}

// `obj[key] = v` with key "__proto__" would replace the prototype instead of adding a key.
function setOwn(obj: Record<string, unknown>, key: string, value: unknown) {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/**
 * Serialises a value as compact JSON: bigints as bare integer literals, keys in insertion
 * order, `undefined` object members omitted (like JSON.stringify).
 */
export function stringifyJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

function write(value: unknown, out: string[]): void {
  switch (typeof value) {
    case 'bigint':
      out.push(value.toString());
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`Cannot serialise non-finite number ${value} as JSON`);
      out.push(JSON.stringify(value));
      return;
    case 'string':
    case 'boolean':
      out.push(JSON.stringify(value));
      return;
    case 'object':
      if (value === null) {
        out.push('null');
        return;
      }
      if (Array.isArray(value)) {
        out.push('[');
        value.forEach((item, i) => {
          if (i > 0) out.push(',');
          // like JSON.stringify, holes and undefined become null inside arrays
          write(item === undefined ? null : item, out);
        });
        out.push(']');
        return;
      }
      out.push('{');
      let first = true;
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined) continue;
        if (!first) out.push(',');
        first = false;
        out.push(JSON.stringify(k), ':');
        write(v, out);
      }
      out.push('}');
      return;
    default:
      throw new TypeError(`Cannot serialise ${typeof value} as JSON`);
  }
}
