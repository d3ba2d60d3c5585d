import { randomBytes } from 'node:crypto';
import { agentsMdSummary, readAgentsMd, swapAgentsMd, type AgentsMdRecord } from '@floe/catalogs';
import type { Db } from '@floe/db';
import { conflict, notFound } from '@floe/http';
import type { AgentsMdWrite } from './agents-md-input';

// A catalog's instructions for AI assistants (an AGENTS.md: what the tables
// mean, conventions, what not to touch): written by those who hold write on
// the catalog, read by anyone who holds read, and by assistants through the
// MCP tool server's `catalog_instructions`. Each write gets a new etag, so a
// client that read one version and writes with its etag (body or If-Match)
// never overwrites a version it has not seen: 409 `agents_md_changed`.

export interface AgentsMdWritten {
  record: AgentsMdRecord;
  previousEtag: string | null;
  previousBytes: number;
  /** False only for removing instructions that did not exist. */
  changed: boolean;
}

/** The catalog's instructions as stored (content null when there are none); 404 when the catalog went since it was resolved. */
export async function readInstructions(db: Db, w: { id: string; name: string }): Promise<AgentsMdRecord> {
  const r = await readAgentsMd(db, w.id);
  if (!r) throw gone(w);
  return r;
}

/** For GET /v1/warehouses/{id}: the instructions' etag, size and time, never the text; null when there are none. */
export const instructionsSummary = (db: Db, w: { id: string }) => agentsMdSummary(db, w.id);

const gone = (w: { name: string }) =>
  notFound('warehouse_not_found', `warehouse ${w.name} is no longer there`, { remedy: 'pass a warehouse_id or a warehouse name from GET /v1/warehouses' });

/** A new version's etag: random, so writing the same text again is a new version too (no A→B→A confusion). */
const newEtag = (): string => randomBytes(12).toString('hex');

/**
 * Steps: one conditional UPDATE (packages/catalogs agents-md-records.ts,
 * swapAgentsMd); when it finds the catalog's version not the expected one,
 * the row is read again for the 409's current version (or a 404 when the
 * catalog went meanwhile).
 */
export async function writeAgentsMd(db: Db, w: { id: string; name: string }, input: AgentsMdWrite, by: string): Promise<AgentsMdWritten> {
  const etag = input.content === null ? null : newEtag();
  const swapped = await swapAgentsMd(db, w.id, input.expect, { content: input.content, etag, by });
  if (!swapped) throw await refusalFor(db, w, input);
  return {
    record: { content: input.content, etag, bytes: input.content === null ? 0 : input.bytes, updatedAt: swapped.updatedAt, updatedBy: swapped.updatedBy },
    previousEtag: swapped.previousEtag,
    previousBytes: swapped.previousBytes,
    changed: swapped.previousEtag !== null || input.content !== null,
  };
}

async function refusalFor(db: Db, w: { id: string; name: string }, input: AgentsMdWrite) {
  const now = await readAgentsMd(db, w.id);
  if (!now) return gone(w);
  const e = input.expect;
  const expected = e.kind === 'one_of' ? e.etags.join(', ') : e.kind === 'absent' ? 'none' : 'some';
  const found = now.etag === null ? 'none' : now.etag;
  return conflict('agents_md_changed', `the catalog's instructions changed since you read them (expected ${expected}, found ${found})`, {
    expected_etag: e.kind === 'one_of' ? (e.etags.length === 1 ? e.etags[0] : e.etags) : e.kind === 'absent' ? null : '*',
    current_etag: now.etag,
    current_bytes: now.bytes,
    updated_at: now.updatedAt ? now.updatedAt.toISOString() : null,
    updated_by: now.updatedBy,
    remedy: `GET /v1/warehouses/${w.id}/agents-md for the current text and etag, merge your change into it, and PUT again with that etag`,
  });
}
