import type { Request } from 'express';
import { acceptTerms, termsOf } from '@floe/accounts';
import { TERMS } from '@floe/config';
import type { Db } from '@floe/db';
import { conflict, forbidden, writeAudit, type Caller, type SqlClient } from '@floe/http';

// Spec: GET /v1/terms and POST /v1/terms/accept. Accepting is a person's act:
// agents' and tool hosts' tokens are refused (`not_a_person`).

export async function termsFor(db: Db, principalId: string) {
  const t = await termsOf(db, principalId);
  return {
    ...TERMS,
    accepted: t.version === TERMS.version,
    accepted_version: t.version,
    accepted_at: t.acceptedAt?.toISOString() ?? null,
  };
}

export async function acceptTermsNow(d: { prisma: Db; db: SqlClient }, req: Request, caller: Caller, asked: string | undefined) {
  if (caller.kind === 'agent' || caller.kind === 'mcp') throw forbidden('not_a_person', 'accepting the Terms is a person\'s act; a token cannot do it');
  if (asked !== undefined && asked !== TERMS.version) {
    throw conflict('terms_version_mismatch', `the Terms in force are version ${TERMS.version}, not ${asked}; read them again`, { current: TERMS.version });
  }
  const at = await acceptTerms(d.prisma, caller.principalId, TERMS.version);
  await writeAudit(d.db, req, { action: 'terms.accept', targetType: 'principal', targetId: caller.principalId, data: { version: TERMS.version } });
  return { ...TERMS, accepted: true, accepted_version: TERMS.version, accepted_at: at.toISOString() };
}
