import { refusal } from './service-refusal';
import { failed, structured } from './tool-result';

// A refusal's remedy: the service's own first, then the tool's words for the code, then this server's.

const errorOf = (r: ReturnType<typeof failed>) => {
  const text = (r.content[0] as { text: string }).text;
  return { first: text.slice(0, text.indexOf('\n')), error: JSON.parse(text.slice(text.indexOf('\n') + 1)).error };
};

test('busy: the server\'s remedy beside the envelope\'s retry_after_seconds', () => {
  const r = failed(refusal(429, 'busy', 'the deployment is running its 8 statements at once', { retry_after_seconds: 2, scope: 'deployment' }));
  expect(r.isError).toBe(true);
  const { first, error } = errorOf(r);
  expect(first).toMatch(/^Refused \(busy\): the deployment is running its 8 statements at once\. What to do: .*wait retry_after_seconds/);
  expect(error).toEqual({ code: 'busy', status: 429, message: 'the deployment is running its 8 statements at once', remedy: expect.stringContaining('retry_after_seconds'), retry_after_seconds: 2, scope: 'deployment' });
});

test('a tool\'s own words for a code come before the server\'s; the service\'s own remedy before both', () => {
  const words = { invalid_value: 'send one read-only SELECT' };
  expect(errorOf(failed(refusal(400, 'invalid_value', 'COPY is not allowed', { field: 'sql' }), words)).error.remedy).toBe('send one read-only SELECT');
  expect(errorOf(failed(refusal(400, 'invalid_value', 'bad'))).error.remedy).toMatch(/^a value was refused/);
  expect(errorOf(failed(refusal(400, 'invalid_value', 'bad', { remedy: 'the service says' }), words)).error.remedy).toBe('the service says');
  for (const code of ['query_timeout', 'catalog_unavailable']) expect(errorOf(failed(refusal(500, code, 'x'))).error.remedy).toEqual(expect.any(String));
});

test('structured: the data as structured content, the text as the one text block', () => {
  expect(structured('2 rows', { rows: [1, 2] })).toEqual({ content: [{ type: 'text', text: '2 rows' }], structuredContent: { rows: [1, 2] } });
});
