import type { Request } from 'express';
import type { Prisma } from '@floe/db';
import type { SqlClient } from './sql';

export interface AuditEvent {
  action: string;
  actorId?: string | null;
  actorKind?: string | null;
  orgId?: string | null;
  targetType?: string | null;
  targetId?: string | null;
  data?: Record<string, unknown>;
}

// Every deployable appends to the log through these two functions: over the
// process's pg pool (the ingest gateway has no Prisma client), or inside the
// Prisma transaction the act belongs to, so an act and its event commit
// together or not at all. Both keep the OAuth actor fields.

const INSERT = `INSERT INTO audit_events (action, actor_id, actor_kind, org_id, target_type, target_id, request_id, ip, data)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)`;

function auditRow(req: Request | null, event: AuditEvent): unknown[] {
  return [
    event.action,
    event.actorId ?? req?.caller?.principalId ?? null,
    event.actorKind ?? req?.caller?.kind ?? null,
    event.orgId ?? null,
    event.targetType ?? null,
    event.targetId ?? null,
    req?.requestId ?? null,
    req?.ip ?? null,
    JSON.stringify(withOAuthActor(req, event.data ?? {})),
  ];
}

/** Appends one event to the audit log; actor, request id and address come from the request when given. */
export async function writeAudit(db: SqlClient, req: Request | null, event: AuditEvent): Promise<void> {
  await db.query(INSERT, auditRow(req, event));
}

/** The same, in the caller's transaction: the event stands only if the act does. */
export async function writeAuditIn(tx: Prisma.TransactionClient, req: Request | null, event: AuditEvent): Promise<void> {
  // Raw: the same statement as writeAudit, so both writers keep one shape.
  await tx.$executeRawUnsafe(INSERT, ...auditRow(req, event));
}

const COALESCED = `INSERT INTO audit_events (action, actor_id, actor_kind, org_id, target_type, target_id, request_id, ip, data, coalesce_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb || jsonb_build_object('count', 1, 'first_at', now(), 'last_at', now()), $10)
     ON CONFLICT (coalesce_key) DO UPDATE
        SET data = audit_events.data || jsonb_build_object('count', COALESCE((audit_events.data->>'count')::int, 1) + 1, 'last_at', now(), 'last_request_id', EXCLUDED.request_id)`;

/**
 * Appends an event of a kind that comes in bursts, coalesced: every event of
 * the same action, target and actor within one UTC minute is one row, whose
 * `data.count` counts them (`first_at`, `last_at`, and the first and last
 * request ids). One statement, so concurrent writers add up exactly.
 */
export async function writeAuditCoalesced(db: SqlClient, req: Request | null, event: AuditEvent, at = new Date()): Promise<void> {
  const row = auditRow(req, event);
  const minute = at.toISOString().slice(0, 16);
  await db.query(COALESCED, [...row, `${event.action}|${row[4]}|${row[5]}|${row[1]}|${minute}`]);
}

/** An act through an OAuth access token is the token record's, on behalf of the person who consented: both are kept. */
function withOAuthActor(req: Request | null, data: Record<string, unknown>): Record<string, unknown> {
  const oauth = req?.caller?.oauth;
  return oauth ? { ...data, on_behalf_of: oauth.personId, oauth_client_id: oauth.clientId } : data;
}
