import { randomUUID } from 'node:crypto';
import type { Db } from '@floe/db';
import { issueApiKey, type IssuedApiKey } from './api-keys';
import { insertPrincipal, type PrincipalKind, type PrincipalRecord } from '../store/principals';

export type { PrincipalKind };

/** Principal ids are `p_` + 32 hex: the spec's bucket names take 8 hex of them. */
export function newPrincipalId(): string {
  return `p_${randomUUID().replace(/-/g, '')}`;
}

/** POST /internal/principals: a principal with a first API key. */
export async function createPrincipalWithKey(
  db: Db, p: { kind: PrincipalKind; email: string | null; displayName: string | null; label: string; termsVersion?: string | null },
): Promise<{ principal: PrincipalRecord; key: IssuedApiKey }> {
  const principal = await insertPrincipal(db, { id: newPrincipalId(), kind: p.kind, email: p.email, displayName: p.displayName, termsVersion: p.termsVersion });
  return { principal, key: await issueApiKey(db, principal.principalId, p.label) };
}

/** POST /internal/principals with `with_key: false`: a principal with no key (an OAuth token record). */
export function createPrincipal(db: Db, p: { kind: PrincipalKind; email: string | null; displayName: string | null }): Promise<PrincipalRecord> {
  return insertPrincipal(db, { id: newPrincipalId(), kind: p.kind, email: p.email, displayName: p.displayName });
}
