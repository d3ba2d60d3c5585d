// A send-route body: a JSON array whose elements are kept exactly as sent.
// JSON.parse validates the whole text and tells each element's kind; a
// second pass finds each element's own text, so large integers and number
// spellings reach the NDJSON object unchanged.

export type ElementKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export type ParsedBatch =
  | { ok: true; elements: Array<{ kind: ElementKind; raw: string }> }
  | { ok: false; reason: string; got: ElementKind | 'invalid json' };

export function kindOf(v: unknown): ElementKind {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v as ElementKind;
}

export function parseBatch(text: string): ParsedBatch {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `the body is not valid JSON: ${(err as Error).message}`, got: 'invalid json' };
  }
  if (!Array.isArray(parsed)) return { ok: false, reason: 'the body must be a JSON array of objects', got: kindOf(parsed) };
  const raws = elementTexts(text);
  return { ok: true, elements: parsed.map((v, i) => ({ kind: kindOf(v), raw: oneLine(raws[i]) })) };
}

const QUOTE = 34, BACKSLASH = 92, COMMA = 44, OPEN_SQ = 91, CLOSE_SQ = 93, OPEN_CU = 123, CLOSE_CU = 125;

/** The text of each top-level element of a JSON array already known to be valid. */
function elementTexts(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: to the next quote that is not escaped.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      continue;
    }
    if (c === OPEN_SQ || c === OPEN_CU) {
      depth++;
      if (depth === 1) start = i + 1;
    } else if (c === CLOSE_SQ || c === CLOSE_CU) {
      if (depth === 1) pushElement(out, text, start, i);
      depth--;
    } else if (c === COMMA && depth === 1) {
      pushElement(out, text, start, i);
      start = i + 1;
    }
  }
  return out;
}

function pushElement(out: string[], text: string, from: number, to: number): void {
  const raw = text.slice(from, to).trim();
  if (raw.length) out.push(raw);
}

/** NDJSON needs one line per element: whitespace between tokens goes, strings stay as they are. */
function oneLine(raw: string): string {
  if (!/[\r\n]/.test(raw)) return raw;
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
