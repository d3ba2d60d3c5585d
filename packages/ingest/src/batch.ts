import { isUtf8 } from 'node:buffer';

// A JSON array body whose elements are kept exactly as sent. One pass over
// the bytes both checks that the body is a JSON array (RFC 8259's grammar,
// which is JSON.parse's) and finds where each top-level element's own text
// is, so large integers and number spellings reach the NDJSON object
// unchanged. The send route copies those byte ranges straight into the
// NDJSON it stores: a 16 MiB body is never decoded, parsed into objects or
// split into strings. JSON.parse reads only a body the pass refuses, to say
// why. Device bodies, which are small, take the elements as text.

export type ElementKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export type ParsedBatch =
  | { ok: true; elements: Array<{ kind: ElementKind; raw: string }> }
  | { ok: false; reason: string; got: ElementKind | 'invalid json' };

export type SendBatch =
  | {
    ok: true;
    /** Elements in the array. */
    count: number;
    /** The object elements as NDJSON, one line each, in order; empty when there is none. */
    ndjson: Buffer;
    objects: number;
    /** The elements that are not objects, by index. */
    others: Array<{ index: number; got: ElementKind }>;
  }
  | { ok: false; reason: string; got: ElementKind | 'invalid json' };

export function kindOf(v: unknown): ElementKind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v as ElementKind;
}

/** The send route's body: its object elements as NDJSON bytes, and what else it held. */
export function readSendBatch(body: Buffer): SendBatch {
  if (!isUtf8(body)) return { ok: false, reason: 'the body is not valid JSON: it is not UTF-8', got: 'invalid json' };
  const found = arrayElements(body, () => body.toString('utf8'));
  if (!found.ok) return found;
  const objects: number[] = [];
  const others: Array<{ index: number; got: ElementKind }> = [];
  for (let i = 0; i < found.starts.length; i++) {
    const kind = kindAt(body, found.starts[i]);
    if (kind === 'object') objects.push(i);
    else others.push({ index: i, got: kind });
  }
  return { ok: true, count: found.starts.length, ndjson: ndjsonOf(body, found, objects), objects: objects.length, others };
}

/** A JSON array's elements as text (device bodies). */
export function parseBatch(text: string): ParsedBatch {
  const bytes = Buffer.from(text, 'utf8');
  const found = arrayElements(bytes, () => text);
  if (!found.ok) return found;
  return {
    ok: true,
    elements: found.starts.map((start, i) => ({ kind: kindAt(bytes, start), raw: elementText(bytes, found, i) })),
  };
}

/** Byte ranges [starts[i], ends[i]) of the top-level elements; `multiline` holds those with line breaks between their tokens. */
interface Elements {
  ok: true;
  starts: number[];
  ends: number[];
  multiline: Set<number>;
}

/** The elements of `bytes` if it is a JSON array; if not, why, in JSON.parse's words (`text` is only decoded then). */
function arrayElements(bytes: Uint8Array, text: () => string): Elements | { ok: false; reason: string; got: ElementKind | 'invalid json' } {
  const found = scanArray(bytes);
  if (found) return found;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text());
  } catch (err) {
    return { ok: false, reason: `the body is not valid JSON: ${(err as Error).message}`, got: 'invalid json' };
  }
  if (!Array.isArray(parsed)) return { ok: false, reason: 'the body must be a JSON array of objects', got: kindOf(parsed) };
  // The scan refused an array JSON.parse reads: a fault in the scan, never the sender's.
  throw new Error('the JSON array scan refused a body JSON.parse accepts');
}

const QUOTE = 34, BACKSLASH = 92, COMMA = 44, COLON = 58, MINUS = 45, PLUS = 43, DOT = 46, ZERO = 48, NINE = 57;
const OPEN_SQ = 91, CLOSE_SQ = 93, OPEN_CU = 123, CLOSE_CU = 125, LF = 10, CR = 13, SPACE = 32, TAB = 9;

/** JSON whitespace: 1 within a line, 2 a line break. */
const WHITESPACE = new Uint8Array(256);
WHITESPACE[SPACE] = 1;
WHITESPACE[TAB] = 1;
WHITESPACE[LF] = 2;
WHITESPACE[CR] = 2;
/** What may follow a backslash in a string: 1 alone, 2 (`u`) with four hex digits. */
const ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPE[c.charCodeAt(0)] = 1;
ESCAPE['u'.charCodeAt(0)] = 2;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

const IN_ARRAY = 1, IN_OBJECT = 2;

/**
 * The top-level elements of `b` if it is one JSON array and nothing else
 * (RFC 8259; bytes from 0x80 up are taken as the caller found them, valid
 * UTF-8); null if it is not. Iterative, so nesting depth costs memory, not stack.
 */
function scanArray(b: Uint8Array): Elements | null {
  const n = b.length;
  const out: Elements = { ok: true, starts: [], ends: [], multiline: new Set() };
  let containers = new Uint8Array(32);
  let depth = 0;
  let lineBreak = false;
  let i = 0;

  const skipWhitespace = (): void => {
    for (; i < n; i++) {
      const w = WHITESPACE[b[i]];
      if (w === 0) return;
      if (w === 2 && depth > 1) lineBreak = true; // inside an element: it is rewritten onto one line
    }
  };
  const string = (): boolean => { // at the opening quote
    for (i++; i < n;) {
      const c = b[i];
      if (c === QUOTE) {
        i++;
        return true;
      }
      if (c === BACKSLASH) {
        const e = ESCAPE[b[i + 1]];
        if (e === 1) i += 2;
        else if (e === 2 && HEX[b[i + 2]] && HEX[b[i + 3]] && HEX[b[i + 4]] && HEX[b[i + 5]]) i += 6;
        else return false;
      } else if (c < SPACE) return false; // control characters must be escaped
      else i++;
    }
    return false;
  };
  const digits = (): boolean => {
    const from = i;
    while (i < n && b[i] >= ZERO && b[i] <= NINE) i++;
    return i > from;
  };
  const number = (): boolean => {
    if (b[i] === MINUS) i++;
    if (b[i] === ZERO) i++;
    else if (!(b[i] > ZERO && b[i] <= NINE) || !digits()) return false;
    if (b[i] === DOT) {
      i++;
      if (!digits()) return false;
    }
    if (b[i] === 101 || b[i] === 69) { // e E
      i++;
      if (b[i] === PLUS || b[i] === MINUS) i++;
      if (!digits()) return false;
    }
    return true;
  };
  const literal = (word: string): boolean => {
    for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) return false;
    i += word.length;
    return true;
  };
  const open = (kind: number): void => {
    if (depth === containers.length) {
      const grown = new Uint8Array(depth * 2);
      grown.set(containers);
      containers = grown;
    }
    containers[depth++] = kind;
    i++;
    skipWhitespace();
  };
  /** At a member's key: the key, the colon, and the whitespace up to its value. */
  const key = (): boolean => {
    if (b[i] !== QUOTE || !string()) return false;
    skipWhitespace();
    if (b[i] !== COLON) return false;
    i++;
    skipWhitespace();
    return true;
  };
  /** Whitespace, then the end of the input. */
  const end = (): Elements | null => {
    skipWhitespace();
    return i === n ? out : null;
  };

  skipWhitespace();
  if (b[i] !== OPEN_SQ) return null;
  open(IN_ARRAY);
  if (b[i] === CLOSE_SQ) {
    i++;
    return end();
  }
  for (;;) {
    // A value starts here.
    if (depth === 1) {
      out.starts.push(i);
      lineBreak = false;
    }
    const c = b[i];
    if (c === OPEN_CU) {
      open(IN_OBJECT);
      if (b[i] === CLOSE_CU) {
        depth--;
        i++;
      } else if (!key()) return null;
      else continue;
    } else if (c === OPEN_SQ) {
      open(IN_ARRAY);
      if (b[i] === CLOSE_SQ) {
        depth--;
        i++;
      } else continue;
    } else if (!(c === QUOTE ? string() : c === MINUS || (c >= ZERO && c <= NINE) ? number()
      : c === 116 ? literal('true') : c === 102 ? literal('false') : c === 110 ? literal('null') : false)) {
      return null;
    }
    // A value ended here: close what it ends, up to the next comma.
    for (;;) {
      if (depth === 1) {
        out.ends.push(i);
        if (lineBreak) out.multiline.add(out.starts.length - 1);
      }
      skipWhitespace();
      const inside = containers[depth - 1];
      const d = b[i];
      if (d === COMMA) {
        i++;
        skipWhitespace();
        if (inside === IN_OBJECT && !key()) return null;
        break;
      }
      if (!((d === CLOSE_SQ && inside === IN_ARRAY) || (d === CLOSE_CU && inside === IN_OBJECT))) return null;
      depth--;
      i++;
      if (depth === 0) return end();
    }
  }
}

function kindAt(b: Uint8Array, at: number): ElementKind {
  switch (b[at]) {
    case OPEN_CU: return 'object';
    case OPEN_SQ: return 'array';
    case QUOTE: return 'string';
    case 116: case 102: return 'boolean'; // t, f
    case 110: return 'null'; // n
    default: return 'number';
  }
}

/** Element i as one line of text. */
function elementText(b: Uint8Array, found: Elements, i: number): string {
  const text = Buffer.from(b.buffer, b.byteOffset + found.starts[i], found.ends[i] - found.starts[i]).toString('utf8');
  return found.multiline.has(i) ? oneLine(text) : text;
}

/**
 * The chosen elements, one per line. Runs of elements that sit in the body
 * separated by a bare comma (what JSON.stringify writes) are copied in one
 * piece and their commas turned into line breaks.
 */
function ndjsonOf(body: Buffer, found: Elements, chosen: number[]): Buffer {
  const { starts, ends, multiline } = found;
  const rewritten = new Map<number, Buffer>();
  let size = 0;
  for (const i of chosen) {
    if (multiline.has(i)) {
      const line = Buffer.from(elementText(body, found, i), 'utf8');
      rewritten.set(i, line);
      size += line.length + 1;
    } else size += ends[i] - starts[i] + 1;
  }
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  for (let k = 0; k < chosen.length;) {
    const first = chosen[k];
    const line = rewritten.get(first);
    if (line) {
      pos += line.copy(out, pos);
      out[pos++] = LF;
      k++;
      continue;
    }
    let last = k;
    while (last + 1 < chosen.length && !multiline.has(chosen[last + 1]) && starts[chosen[last + 1]] === ends[chosen[last]] + 1) last++;
    const from = starts[first];
    pos += body.copy(out, pos, from, ends[chosen[last]]);
    for (let j = k; j < last; j++) out[pos - (ends[chosen[last]] - ends[chosen[j]])] = LF;
    out[pos++] = LF;
    k = last + 1;
  }
  return out;
}

/** NDJSON needs one line per element: whitespace between tokens goes, strings stay as they are. */
function oneLine(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch === '"') {
      let j = i + 1;
      for (; j < raw.length; j++) {
        if (raw[j] === '\\') j++;
        else if (raw[j] === '"') break;
      }
      out += raw.slice(i, j + 1);
      i = j;
    } else if (ch !== ' ' && ch !== '\n' && ch !== '\r' && ch !== '\t') {
      out += ch;
    }
  }
  return out;
}
