// `floe audit`: the audit log (GET /v1/audit), as Floe's own views ask for
// it: an admin of the organisation sees the organisation's events (org_id is
// sent when GET /v1/orgs says the identity is an admin of the session's
// organisation, or whenever --org names one: Floe shows a member only their
// own either way), anyone else their own. A table newest first; with --json
// one event per line (NDJSON), as Floe wrote it. --follow prints the first
// page oldest first, then polls for newer events (since = the newest time
// seen, which Floe includes, so events are told apart by id) and prints each
// once, until Ctrl-C, which ends it with exit 0.
import { InvalidArgumentError, type Command } from 'commander';
import { ok, type Answer } from '../api-client.js';
import { AuditCursor, followAudit, sleepFor, type AuditEvent } from '../audit-follow.js';
import { act, examples, type Ctx } from '../command.js';
import { CliError, passingFailure } from '../errors.js';
import { interactive, type Io } from '../io.js';
import { wholeNumber } from '../option-values.js';

/** The most Floe answers in one call; a poll asks for all of it. */
const MAX_LIMIT = 1000;

export function parseSince(text: string): string {
  if (/^\d+[smhd]$/.test(text) || (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(Date.parse(text)))) return text;
  throw new InvalidArgumentError('a span back from now (30m, 24h, 7d; s, m, h or d) or an ISO 8601 time');
}

export const parseLimit = wholeNumber(1, MAX_LIMIT);

export function parseInterval(text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || n < 1) throw new InvalidArgumentError('seconds, at least 1');
  return n;
}

const HEADER = ['TIME', 'ACTOR', 'ACTION', 'TARGET', 'DETAIL'];
const DETAIL_MAX = 60;
const WIDTHS = [20, 34, 26, 48];

/** The scalar fields of an event's data as `k=v`, cut short for a terminal. */
export function detailOf(data: Record<string, unknown>, max: number): string {
  const text = Object.entries(data).filter(([, v]) => v !== null && typeof v !== 'object').map(([k, v]) => `${k}=${String(v)}`).join(' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** An event as table cells; `detailMax` cuts the data short for a terminal. */
export function eventCells(e: AuditEvent, detailMax = Infinity): string[] {
  return [
    e.created_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
    e.actor_id ?? e.actor_kind ?? '-',
    e.action,
    e.target_type ? `${e.target_type}${e.target_id ? `:${e.target_id}` : ''}` : '-',
    detailOf(e.data, detailMax) || '-',
  ];
}

/** A followed event's line: fixed columns on a terminal (the header is printed once), tab-separated for a pipe. */
const streamLine = (cells: string[], tty: boolean) =>
  (tty ? cells.map((c, i) => (i < WIDTHS.length ? c.padEnd(WIDTHS[i]) : c)).join('  ').trimEnd() : cells.join('\t'));

const scopeText = (a: Answer<'/v1/audit', 'get'>) => (a.scope === 'organisation' ? `of organisation ${a.org_id}` : 'of your own');

/** The organisation to read: --org as named; else the session's when this identity is its admin; else none (own events). */
async function auditOrg(c: Ctx): Promise<string | undefined> {
  if (c.g.org) return c.g.org;
  const s = await c.session();
  let org: string;
  try {
    org = await s.orgId();
  } catch (err) {
    // No organisation, or several and none named: the caller's own events (Floe's note names the others).
    if (err instanceof CliError) return undefined;
    throw err;
  }
  const membership = (await s.orgs()).find((o) => o.org_id === org || o.handle === org);
  return membership?.role === 'admin' ? membership.org_id : undefined;
}

interface AuditOptions {
  since?: string;
  action?: string;
  limit?: number;
  follow?: boolean;
  interval: number;
}

export function registerAudit(program: Command, io: Io): void {
  examples(program.command('audit')
    .description("the audit log: your organisation's events if you are its admin, else your own")
    .option('--since <when>', 'only events since a span back (30m, 24h, 7d) or an ISO 8601 time', parseSince)
    .option('--action <name>', 'one action (warehouse.create) or a prefix ending in * (sink.*)')
    .option('--limit <n>', `at most this many events, 1 to ${MAX_LIMIT} (default 100)`, parseLimit)
    .option('-f, --follow', 'keep printing new events as they come, until Ctrl-C')
    .option('--interval <seconds>', 'with --follow: how often to ask', parseInterval, 5)
    .action(act(io, async (c, opts: AuditOptions) => {
      const { api } = await c.session();
      const orgId = await auditOrg(c);
      const page = (since: string | undefined, limit: number | undefined) => ok(api.http.GET('/v1/audit', {
        params: { query: { ...(since ? { since } : {}), ...(opts.action ? { action: opts.action } : {}), ...(limit ? { limit: String(limit) } : {}), ...(orgId ? { org_id: orgId } : {}) } },
      }));
      const first = await page(opts.since, opts.limit);
      if (first.note) c.out.note(first.note);
      const tty = interactive(io, 'out');

      if (!opts.follow) {
        if (first.count === 0) return c.out.note('No events under these filters.');
        if (c.out.json) for (const e of first.events) c.out.item(e, () => {});
        else c.out.table(HEADER, first.events.map((e) => eventCells(e, tty ? DETAIL_MAX : Infinity)));
        c.out.note(`${first.count} event${first.count === 1 ? '' : 's'} ${scopeText(first)}, newest first.`);
        return;
      }

      // follow: Ctrl-C ends the loop, not the process, so the command exits 0
      const emit = (e: AuditEvent) => c.out.item(e, (ev) => c.out.line(streamLine(eventCells(ev, tty ? DETAIL_MAX : Infinity), tty)));
      if (tty && !c.out.json) c.out.line(streamLine(HEADER, tty));
      const cursor = new AuditCursor(opts.since);
      for (const e of cursor.take(first.events)) emit(e);
      c.out.note(`Following the events ${scopeText(first)}, asking every ${opts.interval} s; Ctrl-C to stop.`);
      const interrupt = new AbortController();
      const stop = () => interrupt.abort();
      process.once('SIGINT', stop);
      try {
        await followAudit({
          fetch: async (since) => {
            const next = await page(since, MAX_LIMIT);
            if (next.count >= MAX_LIMIT) c.out.note(`More than ${MAX_LIMIT} events came in one interval; some may be missing (try a shorter --interval).`);
            return next.events;
          },
          emit,
          sleep: sleepFor,
          pollFailed: (err) => {
            if (!passingFailure(err)) return false;
            c.out.note(`Could not read the log (${err instanceof Error ? err.message : String(err)}); trying again in ${opts.interval} s.`);
            return true;
          },
          intervalMs: opts.interval * 1000,
          signal: interrupt.signal,
        }, cursor);
      } finally {
        process.removeListener('SIGINT', stop);
      }
    })), [
    'floe audit',
    'floe audit --since 7d --action "warehouse.*"',
    'floe audit --org acme --limit 1000 --json > audit.ndjson',
    'floe audit --follow --action "sink.*"',
  ]);
}
