import type { AgentsMdRecord } from '@floe/catalogs';
import { iso } from './responses';

// A catalog's instructions for assistants as GET and PUT
// /v1/warehouses/{id}/agents-md answer them, and the summary
// GET /v1/warehouses/{id} carries (docs/api.md, "Instructions for assistants").

/** The text with its version; null on GET when there is none. */
export function agentsMdView(r: AgentsMdRecord) {
  return { content: r.content, etag: r.etag, bytes: r.bytes, updated_at: iso(r.updatedAt), updated_by: r.updatedBy };
}

/** The answer of GET and PUT …/agents-md. */
export function agentsMdAnswer(w: { id: string; name: string }, agentsMd: ReturnType<typeof agentsMdView> | null) {
  return { warehouse_id: w.id, name: w.name, agents_md: agentsMd };
}

/** GET /v1/warehouses/{id}'s `agents_md`: version, size and time, never the text. */
export function agentsMdSummaryView(s: { etag: string; bytes: number; updatedAt: Date | null } | null) {
  return s ? { etag: s.etag, bytes: s.bytes, updated_at: iso(s.updatedAt) } : null;
}

/** The version as an HTTP entity-tag (the `ETag` header), so a client may send it back in If-Match as it came. */
export const entityTag = (etag: string): string => `"${etag}"`;
