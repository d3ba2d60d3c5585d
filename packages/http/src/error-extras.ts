import { HttpError } from './errors';

// The refusals whose extras the spec gives and several routes answer: built
// here once, so every route answers them in one shape.

/** Whose storage limit applies: the organisation's, or the project's when it has none. */
export type QuotaScope = 'organization' | 'project';

export const quotaScopeOf = (orgId: string | null): QuotaScope => (orgId ? 'organization' : 'project');

/**
 * 409 `quota_exceeded` with `current`, `limit_value` and `scope` (the spec's
 * extras), and for a tier's allowance its `tier` and `headroom`.
 */
export function quotaExceeded(
  message: string,
  q: { current: number; limit_value: number; scope: QuotaScope; tier?: string; headroom?: number },
): HttpError {
  const { tier, ...rest } = q;
  return new HttpError(409, 'quota_exceeded', message, tier === undefined ? rest : { tier, ...rest });
}

/** 409 `limit_exceeded` with the limit's name, `limit_value` and `current` (the spec's extras). */
export function limitExceeded(message: string, l: { limit: string; limit_value: number; current: number }): HttpError {
  return new HttpError(409, 'limit_exceeded', message, { limit: l.limit, limit_value: l.limit_value, current: l.current });
}
