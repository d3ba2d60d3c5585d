// `floe usage`: the scope's limits with their current values and headroom
// (GET /v1/usage), then per catalog its footprint and a chart of its storage
// over the window's days (usage-chart.ts). The scope is the organisation
// (--org, else the profile's or the only one), or one project with
// --project. Storage is metered hourly: until a catalog's first sample it is
// `unmetered`. --json prints Floe's answer.
import type { Command } from 'commander';
import { ok, type Answer } from '../api-client.js';
import { act, examples, type Ctx } from '../command.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { interactive, type Io } from '../io.js';
import { wholeNumber } from '../option-values.js';
import { bytesText } from '../progress.js';
import { storageChart } from '../usage-chart.js';

type Usage = Answer<'/v1/usage', 'get'>;
type Limit = Usage['limits'][keyof Usage['limits']];

export const parseDays = wholeNumber(1, 30, 'days');

/** One row of the limits table: bytes as bytes on a terminal, plain numbers for a pipe. */
export function limitRow(name: string, l: Limit, human: boolean): string[] {
  const amount = (n: number) => (human && name.endsWith('_bytes') ? bytesText(n) : String(n));
  const unmetered = 'unmetered' in l && l.unmetered;
  const state = l.over_limit ? 'over the limit' : unmetered ? 'unmetered (no sample yet)' : '';
  return [name, amount(l.current), amount(l.value), amount(l.headroom), state];
}

/** The organisation to ask about when none is named: the session's, or none when the key belongs to no organisation. */
async function defaultOrg(c: Ctx): Promise<string | undefined> {
  const s = await c.session();
  try {
    return await s.orgId();
  } catch (err) {
    // Several organisations is the person's to settle (--org); none means the scope is their own projects.
    if (err instanceof CliError && err.exitCode !== EXIT_USAGE) return undefined;
    throw err;
  }
}

function printUsage(c: Ctx, u: Usage): void {
  const human = interactive(c.io, 'out');
  const size = (n: number) => (human ? bytesText(n) : `${n} B`);
  c.out.line(`${u.scope === 'project' ? `Project ${u.project_id}` : `Organisation ${u.org_id ?? '(your own projects)'}`}, plan ${u.plan}; ${u.window.from} to ${u.window.to}`);
  c.out.table(['LIMIT', 'CURRENT', 'LIMIT VALUE', 'HEADROOM', 'STATE'], Object.entries(u.limits).map(([name, l]) => limitRow(name, l, human)));
  for (const w of u.warehouses) {
    const now = w.footprint
      ? `${size(w.footprint.bytes)} (tables ${size(w.footprint.table.bytes)}, files ${size(w.footprint.blob.bytes)}), measured ${w.footprint.measured_at}`
      : 'unmetered: no storage sample yet (the first comes about 2 minutes after creation)';
    const change = w.trend.bytes_change;
    const trend = !w.trend.direction ? '' : w.trend.direction === 'flat' || change === null ? `; ${w.trend.direction} over the window` : `; ${w.trend.direction} ${size(Math.abs(change))} over the window`;
    c.out.line('');
    c.out.line(`${w.name} (project ${w.project}, ${w.tier}): ${now}${trend}`);
    for (const line of storageChart(w.days.map((d) => ({ day: d.day, bytes: d.bytes })), 30, size)) c.out.line(`  ${line}`);
  }
  if (u.warehouses.length === 0) c.out.note('No catalogs you can read in this scope.');
}

export function registerUsage(program: Command, io: Io): void {
  examples(program.command('usage')
    .description("your organisation's limits with headroom, and each catalog's storage by day")
    .option('--project <project>', "one project (id or name): its organisation's limits, its catalogs")
    .option('--days <n>', 'days of history per catalog, 1 to 30', parseDays, 7)
    .action(act(io, async (c, opts: { project?: string; days: number }) => {
      const { api } = await c.session();
      const orgId = opts.project ? c.g.org : await defaultOrg(c);
      const usage = await ok(api.http.GET('/v1/usage', {
        params: { query: { days: String(opts.days), ...(opts.project ? { project_id: opts.project } : {}), ...(orgId ? { org_id: orgId } : {}) } },
      }));
      c.out.result(usage, (u) => printUsage(c, u));
    })), ['floe usage', 'floe usage --days 30', 'floe usage --project analytics', 'floe usage --json | jq .limits.storage_bytes']);
}
