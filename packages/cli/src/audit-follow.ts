// The polling of `floe audit --follow`, apart from the command so it is
// tested without a clock or a server. The command prints its first page
// through an AuditCursor; followAudit then asks Floe again every interval with
// since = the newest time seen. Floe's `since` includes its own instant, so
// the newest events come again and are told apart by id: each is emitted
// once. Whether a failed poll ends the loop is the caller's to say.
import type { Answer } from './api-client.js';

export type AuditEvent = Answer<'/v1/audit', 'get'>['events'][number];

/** Oldest first (ties by id), for a stream whose newest line comes last. */
export function chronological(events: AuditEvent[]): AuditEvent[] {
  return [...events].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id.localeCompare(b.id, 'en', { numeric: true }));
}

/**
 * Which events were printed, and where the next poll starts. Floe's `since`
 * includes its own instant, so only the events at the newest time seen can
 * come again: the ids of older ones are forgotten.
 */
export class AuditCursor {
  private readonly seen = new Map<string, number>();
  private newest: number | null = null;

  /** `since` is the command line's (a span or a time) until an event is seen. */
  constructor(private since: string | undefined) {}

  get query(): string | undefined {
    return this.since;
  }

  /** The events not printed yet, oldest first; from now on they count as printed. */
  take(events: AuditEvent[]): AuditEvent[] {
    const fresh = chronological(events.filter((e) => !this.seen.has(e.id)));
    for (const e of fresh) {
      const at = Date.parse(e.created_at);
      this.seen.set(e.id, at);
      if (this.newest === null || at >= this.newest) {
        this.newest = at;
        this.since = e.created_at;
      }
    }
    for (const [id, at] of this.seen) if (this.newest !== null && at < this.newest) this.seen.delete(id);
    return fresh;
  }
}

export interface Follow {
  /** One page of events at or after `since`, newest first, as Floe answers. */
  fetch: (since: string | undefined) => Promise<AuditEvent[]>;
  emit: (event: AuditEvent) => void;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  /** A poll that failed: true to carry on with the next one, false to end with the failure. */
  pollFailed: (err: unknown) => boolean;
  intervalMs: number;
  signal: AbortSignal;
}

/** Polls until `signal` aborts, emitting each event once. */
export async function followAudit(f: Follow, cursor: AuditCursor): Promise<void> {
  while (!f.signal.aborted) {
    await f.sleep(f.intervalMs, f.signal);
    if (f.signal.aborted) return;
    let page: AuditEvent[];
    try {
      page = await f.fetch(cursor.query);
    } catch (err) {
      if (f.signal.aborted) return;
      if (f.pollFailed(err)) continue;
      throw err;
    }
    for (const e of cursor.take(page)) f.emit(e);
  }
}

/** The follow loop's sleep: `ms`, cut short by Ctrl-C. */
export const sleepFor = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); resolve(); };
  const timer = setTimeout(done, ms);
  signal.addEventListener('abort', done, { once: true });
});
