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

/** The send route's body: its object elements as NDJSON bytes, and what else it held. The NDJSON may be `body` itself, rewritten. */
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

/** Bytes a string runs on over: all but the quote, the backslash and control characters (which JSON makes escape). */
const PLAIN_IN_STRING = new Uint8Array(256).fill(1, SPACE);
PLAIN_IN_STRING[QUOTE] = 0;
PLAIN_IN_STRING[BACKSLASH] = 0;
/** What may follow a backslash in a string: 1 alone, 2 (`u`) with four hex digits. */
const ESCAPE = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPE[c.charCodeAt(0)] = 1;
ESCAPE['u'.charCodeAt(0)] = 2;
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

const IN_ARRAY = 1, IN_OBJECT = 2;
/** What the scan expects at the next token. */
const VALUE = 0, VALUE_OR_CLOSE = 1, KEY = 2, KEY_OR_CLOSE = 3, COLON_NEXT = 4, AFTER_VALUE = 5, END = 6;

const isDigit = (c: number): boolean => c >= ZERO && c <= NINE;

/**
 * The top-level elements of `b` if it is one JSON array and nothing else
 * (RFC 8259; bytes from 0x80 up are taken as the caller found them, valid
 * UTF-8); null if it is not. One loop over the tokens with every position in
 * a local (this reads up to 16 MiB per request: helper closures sharing the
 * position ran at two thirds the speed); iterative, so nesting depth costs
 * memory, not stack. Reading past the end yields undefined, which no test
 * below accepts.
 */
function scanArray(b: Uint8Array): Elements | null {
  const n = b.length;
  const out: Elements = { ok: true, starts: [], ends: [], multiline: new Set() };
  let containers = new Uint8Array(32);
  let depth = 0;
  let lineBreak = false;
  let valueEnd = 0;
  let state = VALUE;
  let i = 0;
  let c = b[0];
  while (c === SPACE || c === TAB || c === LF || c === CR) c = b[++i];
  if (c !== OPEN_SQ) return null;
  containers[depth++] = IN_ARRAY;
  i++;
  state = VALUE_OR_CLOSE;
  for (;;) {
    c = b[i];
    while (c === SPACE || c === TAB || c === LF || c === CR) {
      if (depth > 1 && (c === LF || c === CR)) lineBreak = true; // inside an element: it is rewritten onto one line
      c = b[++i];
    }
    switch (state) {
      case VALUE_OR_CLOSE:
        if (c === CLOSE_SQ) {
          depth--;
          valueEnd = ++i;
          state = depth === 0 ? END : AFTER_VALUE;
          continue;
        }
        state = VALUE;
        continue;
      case KEY_OR_CLOSE:
        if (c === CLOSE_CU) {
          depth--;
          valueEnd = ++i;
          state = AFTER_VALUE;
          continue;
        }
        if (c !== QUOTE) return null;
        state = COLON_NEXT;
        break; // the string below
      case KEY:
        if (c !== QUOTE) return null;
        state = COLON_NEXT;
        break; // the string below
      case COLON_NEXT:
        if (c !== COLON) return null;
        i++;
        state = VALUE;
        continue;
      case VALUE:
        if (depth === 1) {
          out.starts.push(i);
          lineBreak = false;
        }
        if (c === OPEN_CU || c === OPEN_SQ) {
          if (depth === containers.length) {
            const grown = new Uint8Array(depth * 2);
            grown.set(containers);
            containers = grown;
          }
          containers[depth++] = c === OPEN_CU ? IN_OBJECT : IN_ARRAY;
          i++;
          state = c === OPEN_CU ? KEY_OR_CLOSE : VALUE_OR_CLOSE;
          continue;
        }
        state = AFTER_VALUE;
        if (c === QUOTE) break; // the string below
        if (c === MINUS || isDigit(c)) {
          if (c === MINUS) c = b[++i];
          if (c === ZERO) c = b[++i];
          else if (isDigit(c)) do c = b[++i]; while (isDigit(c));
          else return null;
          if (c === DOT) {
            c = b[++i];
            if (!isDigit(c)) return null;
            do c = b[++i]; while (isDigit(c));
          }
          if (c === 101 || c === 69) { // e E
            c = b[++i];
            if (c === PLUS || c === MINUS) c = b[++i];
            if (!isDigit(c)) return null;
            do c = b[++i]; while (isDigit(c));
          }
        } else if (c === 116 && b[i + 1] === 114 && b[i + 2] === 117 && b[i + 3] === 101) i += 4; // true
        else if (c === 102 && b[i + 1] === 97 && b[i + 2] === 108 && b[i + 3] === 115 && b[i + 4] === 101) i += 5; // false
        else if (c === 110 && b[i + 1] === 117 && b[i + 2] === 108 && b[i + 3] === 108) i += 4; // null
        else return null;
        valueEnd = i;
        continue;
      case AFTER_VALUE: {
        if (depth === 1) {
          out.ends.push(valueEnd);
          if (lineBreak) out.multiline.add(out.starts.length - 1);
        }
        const inside = containers[depth - 1];
        if (c === COMMA) {
          i++;
          state = inside === IN_OBJECT ? KEY : VALUE;
          continue;
        }
        if (!((c === CLOSE_SQ && inside === IN_ARRAY) || (c === CLOSE_CU && inside === IN_OBJECT))) return null;
        depth--;
        valueEnd = ++i;
        if (depth === 0) state = END;
        continue;
      }
      default: // END
        return i === n ? out : null;
    }
    // A string (a key or a value) starts at i.
    for (i++; ;) {
      while (PLAIN_IN_STRING[b[i]] === 1) i++;
      c = b[i];
      if (c === QUOTE) break;
      if (c !== BACKSLASH) return null; // a control character, or the end of the input
      const escape = ESCAPE[b[i + 1]];
      if (escape === 1) i += 2;
      else if (escape === 2 && HEX[b[i + 2]] && HEX[b[i + 3]] && HEX[b[i + 4]] && HEX[b[i + 5]]) i += 6;
      else return null;
    }
    valueEnd = ++i;
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
  // The commonest body (JSON.stringify's: objects only, a bare comma between each two, `]` right after the last) is
  // its own NDJSON, in place: each comma between elements becomes a line break, and so does the `]`. Nothing is copied.
  const last = chosen.length - 1;
  if (last >= 0 && chosen.length === starts.length && multiline.size === 0 && body[ends[last]] === CLOSE_SQ) {
    let k = 0;
    while (k < last && starts[k + 1] === ends[k] + 1) k++;
    if (k === last) {
      for (let j = 0; j <= last; j++) body[ends[j]] = LF;
      return body.subarray(starts[0], ends[last] + 1);
    }
  }
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
