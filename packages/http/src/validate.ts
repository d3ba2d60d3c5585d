import type { z } from 'zod';
import { HttpError } from './errors';

// zod failures become the spec's 400s: a required field that is absent is
// `missing_field`, anything else `invalid_value`; both name the `field`.
export function parse<T extends z.ZodType>(schema: T, data: unknown, where: 'body' | 'query' = 'body'): z.infer<T> {
  const result = schema.safeParse(data ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.map(String).join('.') || where;
  const present = valueAt(data, issue.path as PropertyKey[]) !== undefined;
  if (!present && issue.path.length > 0) {
    throw new HttpError(400, 'missing_field', `${field} is required`, { field });
  }
  throw new HttpError(400, 'invalid_value', `${field}: ${issue.message}`, { field });
}

function valueAt(data: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = data;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}
