import { HttpError } from '@floe/http';
import { AGENTS_MD_MAX_BYTES, parseAgentsMdWrite } from './agents-md-input';

// Which version a PUT …/agents-md expects, from its body and headers, and the
// refusals before the store is asked (the e2e test covers them over HTTP).

const refusal = (f: () => unknown): { status: number; code: string; extras: Record<string, unknown> } => {
  try {
    f();
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, code: err.code, extras: err.extras };
    throw err;
  }
  throw new Error('expected a refusal');
};

test('the expectation: If-Match (a list, or *) over If-None-Match: * over the body\'s etag over none', () => {
  expect(parseAgentsMdWrite({ content: 'a' }, {}).expect).toEqual({ kind: 'any' });
  expect(parseAgentsMdWrite({ content: 'a', etag: 'e1' }, {}).expect).toEqual({ kind: 'one_of', etags: ['e1'] });
  expect(parseAgentsMdWrite({ content: 'a', etag: null }, {}).expect).toEqual({ kind: 'absent' });
  expect(parseAgentsMdWrite({ content: 'a', etag: 'e1' }, { ifMatch: '"e2", e3 ,W/"e4"' }).expect).toEqual({ kind: 'one_of', etags: ['e2', 'e3', 'W/"e4"'] });
  expect(parseAgentsMdWrite({ content: 'a', etag: 'e1' }, { ifMatch: ' * ' }).expect).toEqual({ kind: 'present' });
  expect(parseAgentsMdWrite({ content: 'a', etag: 'e1' }, { ifNoneMatch: '*' }).expect).toEqual({ kind: 'absent' });
});

test('content: bytes in UTF-8, an empty string removes, the limit is inclusive', () => {
  expect(parseAgentsMdWrite({ content: 'é' }, {})).toMatchObject({ content: 'é', bytes: 2 });
  expect(parseAgentsMdWrite({ content: '' }, {})).toMatchObject({ content: null, bytes: 0 });
  expect(parseAgentsMdWrite({ content: 'x'.repeat(AGENTS_MD_MAX_BYTES) }, {}).bytes).toBe(65_536);
  expect(refusal(() => parseAgentsMdWrite({ content: 'é'.repeat(AGENTS_MD_MAX_BYTES / 2 + 1) }, {})))
    .toEqual({ status: 413, code: 'too_large', extras: { field: 'content', limit_bytes: 65_536, bytes: 65_538 } });
});

test('refusals name their field', () => {
  const cases: Array<[unknown, { ifMatch?: string; ifNoneMatch?: string }, number, string, string]> = [
    [undefined, {}, 400, 'missing_field', 'content'],
    [[], {}, 400, 'missing_field', 'content'],
    [{ etag: 'e' }, {}, 400, 'missing_field', 'content'],
    [{ content: 1 }, {}, 400, 'invalid_value', 'content'],
    [{ content: null }, {}, 400, 'invalid_value', 'content'],
    [{ content: 'a\u0000' }, {}, 400, 'invalid_value', 'content'],
    [{ content: 'a', etag: 3 }, {}, 400, 'invalid_value', 'etag'],
    [{ content: 'a', etag: '' }, {}, 400, 'invalid_value', 'etag'],
    [{ content: 'a', other: 1 }, {}, 400, 'invalid_field', 'other'],
    [{ content: 'a' }, { ifMatch: ',' }, 400, 'invalid_value', 'If-Match'],
    [{ content: 'a' }, { ifNoneMatch: '"e"' }, 400, 'invalid_value', 'If-None-Match'],
    [{ content: 'a' }, { ifMatch: '"e"', ifNoneMatch: '*' }, 400, 'invalid_value', 'If-None-Match'],
  ];
  for (const [body, headers, status, code, field] of cases) {
    const r = refusal(() => parseAgentsMdWrite(body, headers));
    expect([body, r.status, r.code, r.extras.field]).toEqual([body, status, code, field]);
  }
});
