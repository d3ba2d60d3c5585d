import type { AgentsMdExpectation } from '@floe/catalogs';
import { badRequest, HttpError } from '@floe/http';

// PUT /v1/warehouses/{id}/agents-md's input, judged whole before the store is
// asked: the body `{content, etag?}` (JSON, like every other body of the API)
// and the conditional headers. Which version the write expects comes from
// `If-Match` (a list of etags, or `*`: some text exists), else
// `If-None-Match: *` (none exists yet), else the body's `etag` (a string, or
// null: none exists yet), else any version. A header wins over the body.

/** The most UTF-8 bytes a catalog's instructions may hold (64 KiB). */
export const AGENTS_MD_MAX_BYTES = 64 * 1024;

const FIELDS = ['content', 'etag'];

export interface AgentsMdWrite {
  /** The new text; null removes it (an empty `content`). */
  content: string | null;
  bytes: number;
  expect: AgentsMdExpectation;
}

export interface ConditionalHeaders {
  ifMatch?: string;
  ifNoneMatch?: string;
}

/** One entity-tag as a header carries it: quoted (`"abc"`) or bare; a weak one (`W/"abc"`) is kept whole, so it matches nothing (If-Match compares strongly). */
const unquote = (tag: string): string => (tag.length >= 2 && tag.startsWith('"') && tag.endsWith('"') ? tag.slice(1, -1) : tag);

function expectationOf(body: Record<string, unknown>, h: ConditionalHeaders): AgentsMdExpectation {
  if (h.ifMatch !== undefined && h.ifNoneMatch !== undefined) {
    throw badRequest('invalid_value', 'send one of If-Match and If-None-Match, not both', { field: 'If-None-Match' });
  }
  if (h.ifMatch !== undefined) {
    const value = h.ifMatch.trim();
    if (value === '*') return { kind: 'present' };
    const etags = value.split(',').map((t) => unquote(t.trim())).filter((t) => t !== '');
    if (etags.length === 0) throw badRequest('invalid_value', 'If-Match names no etag: send the etag GET answered, or *', { field: 'If-Match' });
    return { kind: 'one_of', etags };
  }
  if (h.ifNoneMatch !== undefined) {
    if (h.ifNoneMatch.trim() !== '*') {
      throw badRequest('invalid_value', 'If-None-Match takes only * here (write only if no instructions exist yet)', { field: 'If-None-Match', accepts: ['*'] });
    }
    return { kind: 'absent' };
  }
  if (!('etag' in body) || body.etag === undefined) return { kind: 'any' };
  if (body.etag === null) return { kind: 'absent' };
  if (typeof body.etag !== 'string' || body.etag === '') {
    throw badRequest('invalid_value', 'etag is the etag GET answered (a string), or null for "only if none exists yet"', { field: 'etag' });
  }
  return { kind: 'one_of', etags: [body.etag] };
}

/** The body and headers of a PUT, or the refusal: 400 `missing_field` / `invalid_field` / `invalid_value`, 413 `too_large`. */
export function parseAgentsMdWrite(raw: unknown, headers: ConditionalHeaders): AgentsMdWrite {
  if (raw === null || raw === undefined || typeof raw !== 'object' || Array.isArray(raw)) {
    throw badRequest('missing_field', 'send {"content": "<markdown>", "etag"?: "<etag from GET>"}', { field: 'content' });
  }
  const body = raw as Record<string, unknown>;
  const unknown = Object.keys(body).filter((k) => !FIELDS.includes(k));
  if (unknown.length) throw badRequest('invalid_field', `${unknown.join(', ')} is not a field of this body`, { field: unknown[0], accepts: FIELDS });
  if (!('content' in body) || body.content === undefined) {
    throw badRequest('missing_field', 'content is required: the markdown text, or "" to remove it', { field: 'content' });
  }
  const content = body.content;
  if (typeof content !== 'string') throw badRequest('invalid_value', 'content is the markdown text as a JSON string', { field: 'content' });
  // The edge refuses a NUL in any JSON string already; kept here so the rule holds for any caller of this function.
  if (content.includes('\u0000')) throw badRequest('invalid_value', 'content holds a NUL character, which text cannot', { field: 'content' });
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > AGENTS_MD_MAX_BYTES) {
    throw new HttpError(413, 'too_large', `content is ${bytes} bytes of UTF-8; at most ${AGENTS_MD_MAX_BYTES}`, { field: 'content', limit_bytes: AGENTS_MD_MAX_BYTES, bytes });
  }
  const expect = expectationOf(body, headers);
  return { content: content === '' ? null : content, bytes, expect };
}
