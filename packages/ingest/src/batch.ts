import { isAscii, isUtf8 } from 'node:buffer';

// A JSON array body whose elements are kept exactly as sent. JSON.parse
// validates the whole text; one pass over the bytes then finds where each
// top-level element's own text is, so large integers and number spellings
// reach the NDJSON object unchanged. The send route copies those byte ranges
// straight into the NDJSON it stores (a 16 MiB body is never split into
// strings); device bodies, which are small, take the elements as text.

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
  // ASCII (most bodies) decodes as Latin-1 to the same text, byte for byte, at a fraction of UTF-8's cost.
  const ascii = isAscii(body);
  if (!ascii && !isUtf8(body)) return { ok: false, reason: 'the body is not valid JSON: it is not UTF-8', got: 'invalid json' };
  const found = arrayElements(body, body.toString(ascii ? 'latin1' : 'utf8'));
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
  const found = arrayElements(bytes, text);
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

function arrayElements(bytes: Uint8Array, text: string): Elements | { ok: false; reason: string; got: ElementKind | 'invalid json' } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `the body is not valid JSON: ${(err as Error).message}`, got: 'invalid json' };
  }
  if (!Array.isArray(parsed)) return { ok: false, reason: 'the body must be a JSON array of objects', got: kindOf(parsed) };
  const found = scanElements(bytes);
  if (found.starts.length !== parsed.length) throw new Error(`found ${found.starts.length} elements where JSON.parse found ${parsed.length}`);
  return found;
}

const QUOTE = 34, BACKSLASH = 92, COMMA = 44, OPEN_SQ = 91, CLOSE_SQ = 93, OPEN_CU = 123, CLOSE_CU = 125, LF = 10, CR = 13, SPACE = 32, TAB = 9;

/** What a byte is to the scan; 0 for every byte it passes over. */
const STRING = 1, OPEN = 2, CLOSE = 3, SEPARATOR = 4, LINE_BREAK = 5;
const BYTE_CLASS = new Uint8Array(256);
BYTE_CLASS[QUOTE] = STRING;
BYTE_CLASS[OPEN_SQ] = OPEN;
BYTE_CLASS[OPEN_CU] = OPEN;
BYTE_CLASS[CLOSE_SQ] = CLOSE;
BYTE_CLASS[CLOSE_CU] = CLOSE;
BYTE_CLASS[COMMA] = SEPARATOR;
BYTE_CLASS[LF] = LINE_BREAK;
BYTE_CLASS[CR] = LINE_BREAK;

/** The elements of a top-level JSON array already known to be valid. */
function scanElements(b: Uint8Array): Elements {
  const out: Elements = { ok: true, starts: [], ends: [], multiline: new Set() };
  const n = b.length;
  let depth = 0;
  let start = -1;
  let lineBreak = false;
  for (let i = 0; i < n; i++) {
    const cls = BYTE_CLASS[b[i]];
    if (cls === 0) continue;
    if (cls === STRING) {
      // Skip the string: to the next quote that is not escaped. Valid JSON has no raw line break in one.
      for (i++; i < n; i++) {
        const d = b[i];
        if (d === QUOTE) break;
        if (d === BACKSLASH) i++;
      }
    } else if (cls === OPEN) {
      if (++depth === 1) start = i + 1;
    } else if (cls === CLOSE) {
      if (depth === 1) pushElement(out, b, start, i, lineBreak);
      depth--;
    } else if (cls === SEPARATOR) {
      if (depth === 1) {
        pushElement(out, b, start, i, lineBreak);
        lineBreak = false;
        start = i + 1;
      }
    } else if (depth > 1) {
      lineBreak = true;
    }
  }
  return out;
}

function isSpace(c: number): boolean {
  return c === SPACE || c === LF || c === CR || c === TAB;
}

function pushElement(out: Elements, b: Uint8Array, from: number, to: number, lineBreak: boolean): void {
  while (from < to && isSpace(b[from])) from++;
  while (to > from && isSpace(b[to - 1])) to--;
  if (from === to) return; // the inside of []
  if (lineBreak) out.multiline.add(out.starts.length);
  out.starts.push(from);
  out.ends.push(to);
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
