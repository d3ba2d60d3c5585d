import type { SqlClient } from '@floe/http';
import { orgOfRecord } from '../store/records';

// The organisation a request's tool calls are audited under (tools/register.ts
// writes one audit row per call). Asked only when a tool call needs it, and
// at most once per request: a batch of calls shares the one lookup, and a
// request that only lists tools makes none.

/** The token record's organisation, looked up on first use and then remembered for this request. */
export function callerOrg(db: SqlClient, recordId: string): () => Promise<string | null> {
  let org: Promise<string | null> | null = null;
  return () => (org ??= orgOfRecord(db, recordId));
}
