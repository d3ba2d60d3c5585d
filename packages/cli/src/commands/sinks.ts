// `floe sinks list|show|create|delete|send|test|rejects`: sinks, which turn
// JSON rows posted to them into appends to one table (spec: /v1/sinks). A
// sink's send key is shown once, at creation: floe keeps it with the profile
// that made the sink (logins.ts), or prints it when there is no profile.
// `send` reads a file and posts it in batches with the send key (sink-send.ts);
// it can be re-run after a failure, since a batch Floe already holds is
// answered as a duplicate and not stored again.
// With --json, `send` prints one object, {sink_id, file, batches, sent,
// duplicates, accepted, rejected, bytes}: the file's batches; those stored by
// this run; those Floe already held; the elements accepted and refused over
// all the file's batches, as Floe counted them (a duplicate's from its first
// send); the JSON bytes of the batches this run stored. `rejects --json`
// prints {sink_id, name, warehouse_name, rejects} with Floe's rejects as they
// came. The others print Floe's answer.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import { InvalidArgumentError, type Command } from 'commander';
import { ok, type Answer } from '../api-client.js';
import { parseTableName, tableNameText } from '../catalog-client.js';
import { act, examples, type Ctx } from '../command.js';
import { usageError } from '../errors.js';
import type { Io } from '../io.js';
import { wholeNumber } from '../option-values.js';
import { forgetSendKey } from '../logins.js';
import { bytesText } from '../progress.js';
import { DEFAULT_BATCH_BYTES, DEFAULT_BATCH_ROWS, formatOf, MAX_BATCH_ROWS, placeOf, readRows, ROW_FORMATS, type RowFormat } from '../sink-batches.js';
import { counted, keepSendKey, requireFile, sendFile, sendTarget, sinkNamed } from '../sink-send.js';

/** What `show` prints of a sink (the create answer has it too). */
type SinkShown = Pick<Answer<'/v1/sinks/{sink_id}', 'get'>,
  'sink_id' | 'name' | 'warehouse_name' | 'table' | 'state' | 'disabled_reason' | 'roll' | 'lag' | 'received' | 'last_roll' | 'rejects' | 'send_url' | 'device' | 'created_at' | 'deleted_at'>;

/** What `sinks test` sends: the route's dry run takes at most 256 KiB. */
const TEST_ROWS = 100;
const TEST_BYTES = 256 * 1024;
const MIB = 1024 * 1024;

const rowFormat = (text: string): RowFormat => {
  const f = ROW_FORMATS.find((x) => x === text);
  if (!f) throw new InvalidArgumentError(`one of ${ROW_FORMATS.join(', ')}`);
  return f;
};

/** The table's name as a sink name: lowercase letters, digits, `_` and `-`, starting with a letter, at most 63. */
export function defaultSinkName(table: string): string {
  const base = table.slice(table.lastIndexOf('.') + 1).toLowerCase().replace(/[^a-z0-9_-]/g, '_');
  return (/^[a-z]/.test(base) ? base : `t_${base}`).slice(0, 63);
}

const getSink = (c: Ctx, sink: string) => c.session().then(({ api }) => sinkNamed(api, sink));

export function registerSinks(program: Command, io: Io): void {
  const sinks = program.command('sinks').description('sinks: JSON rows posted to a sink are appended to its table');

  examples(sinks.command('list', { isDefault: true })
    .description('list the sinks of the catalogs you can read')
    .option('--catalog <catalog>', 'only this catalog\'s sinks (name or id)')
    .option('--include-deleted', 'deleted sinks too')
    .action(act(io, async (c, opts: { catalog?: string; includeDeleted?: boolean }) => {
      const { api } = await c.session();
      const query = { ...(opts.catalog ? { warehouse: opts.catalog } : {}), ...(opts.includeDeleted ? { include_deleted: 'true' as const } : {}) };
      const answer = await ok(api.http.GET('/v1/sinks', { params: { query } }));
      c.out.result(answer, (a) => {
        if (a.sinks.length === 0) return c.out.note('No sinks yet; make one with `floe sinks create <catalog> <namespace.table>`.');
        c.out.table(['NAME', 'SINK ID', 'CATALOG', 'TABLE', 'STATE', 'WAITING', 'LAST ROLL'], a.sinks.map((s) => [
          s.name, s.sink_id, s.warehouse_name, s.table, s.state, `${s.lag.batches_waiting} batches`, s.last_roll?.at ?? 'never',
        ]));
      });
    })), ['floe sinks list', 'floe sinks list --catalog lake --include-deleted', 'floe sinks list --json | jq -r ".sinks[].sink_id"']);

  examples(sinks.command('show')
    .description('a sink\'s settings, what it received, how far behind it is, and its last roll')
    .argument('<sink>', 'the sink\'s name or id')
    .action(act(io, async (c, sink: string) => {
      c.out.result(await getSink(c, sink), (s) => c.out.fields(sinkFields(s)));
    })), ['floe sinks show events_in', 'floe sinks show snk_5c1e… --json | jq .lag']);

  examples(sinks.command('create')
    .description('make a sink that appends the rows sent to it to a table; its send key is shown once, and kept with your profile')
    .argument('<catalog>', 'catalog name or id')
    .argument('<table>', 'namespace.table: an existing, unpartitioned table (one sink per table)')
    .option('--name <name>', 'the sink\'s name: lowercase letters, digits, _ and - (default: the table\'s name)')
    .option('--roll-seconds <s>', 'append waiting rows at least this often (default 300, at least 60)', wholeNumber(1))
    .option('--roll-bytes <b>', 'or as soon as this many bytes wait (default 67108864; 32 to 64 MiB)', wholeNumber(1))
    .option('--inactivity-seconds <s>', 'or once nothing has arrived for this long (default: never)', wholeNumber(1))
    .action(act(io, async (c, catalog: string, tableArg: string, opts: { name?: string; rollSeconds?: number; rollBytes?: number; inactivitySeconds?: number }) => {
      const table = tableNameText(parseTableName(tableArg));
      const s = await c.session();
      const made = await ok(s.api.http.POST('/v1/sinks', {
        body: {
          name: opts.name ?? defaultSinkName(table), table, warehouse: catalog,
          ...(opts.rollSeconds !== undefined ? { roll_seconds: opts.rollSeconds } : {}),
          ...(opts.rollBytes !== undefined ? { roll_bytes: opts.rollBytes } : {}),
          ...(opts.inactivitySeconds !== undefined ? { inactivity_seconds: opts.inactivitySeconds } : {}),
        },
      }));
      const kept = s.login ? await keepSendKey(io, s.login, made.sink_id, made.send_key) : null;
      c.out.result(made, (m) => {
        const send = `floe sinks send ${m.name} <file>`;
        if (kept?.where) {
          c.out.fields(sinkFields(m));
          return c.out.note(`Its send key is kept with profile "${kept.profile}" (in ${kept.where}); \`${send}\` uses it.`);
        }
        // No profile to keep it in (or keeping it failed): the key goes to stdout alone, so `> send.key` keeps it.
        c.out.line(m.send_key);
        if (kept?.failure) c.out.note(`Could not keep the send key with profile "${kept.profile}": ${kept.failure}.`);
        c.out.note(`Sink ${m.name} (${m.sink_id}) made on ${m.warehouse_name} for ${m.table}. The send key above is shown once and Floe keeps only a hash: `
          + `keep it, and give it to \`${send}\` with --send-key-file <path> or FLOE_SEND_KEY.`);
      });
    })), [
    'floe sinks create lake demo.events',
    'floe sinks create lake demo.events --name events_in --inactivity-seconds 5',
    'floe sinks create lake web.clicks --json | jq -r .send_key > clicks.sendkey',
  ]);

  examples(sinks.command('delete')
    .description('delete a sink: its send key is refused at once and waiting batches are discarded; the table is untouched')
    .argument('<sink>', 'the sink\'s name or id')
    .action(act(io, async (c, sinkArg: string) => {
      const sink = await getSink(c, sinkArg);
      const waiting = sink.lag.batches_waiting;
      await c.confirm(`Sink ${sink.name} (${sink.table} on ${sink.warehouse_name}) will be deleted: its send key stops working at once`
        + `${waiting ? ` and ${waiting} waiting batches (${bytesText(sink.lag.bytes_waiting)}) are discarded` : ''}; the table keeps its rows`);
      const { api, login, key } = await c.session();
      const gone = await ok(api.http.DELETE('/v1/sinks/{sink_id}', { params: { path: { sink_id: sink.sink_id } } }));
      // The profile's copy of the send key is refused from now on: it goes too.
      if (login && key.source === 'login') await forgetSendKey(io, login.name, sink.sink_id);
      c.out.result(gone, (g) => c.out.note(`Deleted sink ${g.name} (${g.sink_id}); ${g.pending_batches_discarded} waiting batches discarded. ${g.table} is untouched.`));
    })), ['floe sinks delete events_in', 'floe sinks delete snk_5c1e… --yes']);

  examples(sinks.command('send')
    .description('send the rows of a file to a sink, in batches; re-running the same command sends only what did not arrive')
    .argument('<sink>', 'the sink\'s name or id')
    .argument('<file>', 'rows: .ndjson/.jsonl (an object per line), .json (an array of objects) or .csv (a header row)')
    .option('--format <format>', `how to read the file (default: from its extension): ${ROW_FORMATS.join(', ')}`, rowFormat)
    .option('--batch-rows <n>', `rows per batch, at most (batches also stay under ${DEFAULT_BATCH_BYTES / MIB} MiB of JSON)`, wholeNumber(1, MAX_BATCH_ROWS), DEFAULT_BATCH_ROWS)
    .option('--send-key-file <path>', 'a file holding the sink\'s send key (else FLOE_SEND_KEY, else the key your profile kept at `sinks create`)')
    .addHelpText('after', '\nA send key is enough without an API key when the sink is named by its id (snk_…).\n'
      + 'Batch ids come from the file\'s content and --batch-rows: sending the same file again sends nothing twice.')
    .action(act(io, async (c, sinkArg: string, file: string, opts: { format?: RowFormat; batchRows: number; sendKeyFile?: string }) => {
      const format = formatOf(file, opts.format);
      requireFile(file);
      const target = await sendTarget(c, sinkArg, opts.sendKeyFile);
      const summary = await sendFile(c, target, file, format, { rows: opts.batchRows, bytes: DEFAULT_BATCH_BYTES });
      c.out.result(summary.result, (r) => {
        c.out.fields([
          ['sink', `${target.name}${target.name === r.sink_id ? '' : ` (${r.sink_id})`}`],
          ['batches', r.batches], ['sent', r.sent], ['duplicates', `${r.duplicates}${r.duplicates ? ' (sent before; skipped)' : ''}`],
          ['accepted', counted(r.accepted, 'row')], ['rejected', `${counted(r.rejected, 'row')}${r.rejected ? ' (at intake)' : ''}`], ['bytes', bytesText(r.bytes)],
        ]);
        for (const line of summary.refusals) c.out.note(`refused at intake: ${line}`);
        if (summary.refusedNow > summary.refusals.length) c.out.note(`… and ${summary.refusedNow - summary.refusals.length} more refused at intake.`);
        if (r.accepted) c.out.note(`The roller appends them at its next roll; rows that do not fit the table are counted in \`floe sinks rejects ${target.name}\`.`);
      });
    })), [
    'floe sinks send events_in events.ndjson',
    'floe sinks send events_in export.csv --batch-rows 2000',
    'FLOE_SEND_KEY=$(cat events.sendkey) floe sinks send snk_5c1e… events.json --json',
  ]);

  examples(sinks.command('test')
    .description('dry-run the first rows of a file against a sink: how they would map onto the table and why misfits would be refused (nothing is stored)')
    .argument('<sink>', 'the sink\'s name or id')
    .argument('<file>', 'a file of rows as `sinks send` reads it, or - for standard input')
    .option('--format <format>', `how to read it (default: from the extension; from stdin, json when it starts with [, else ndjson): ${ROW_FORMATS.join(', ')}`, rowFormat)
    .action(act(io, async (c, sink: string, file: string, opts: { format?: RowFormat }) => {
      // read the first rows
      const fromStdin = file === '-';
      const stdin = fromStdin ? await io.readInput() : '';
      const format = opts.format ?? (fromStdin ? (stdin.trimStart().startsWith('[') ? 'json' : 'ndjson') : formatOf(file));
      if (!fromStdin) requireFile(file);
      const name = fromStdin ? 'standard input' : file;
      const input = fromStdin ? Readable.from([stdin]) : createReadStream(file);
      const rows: string[] = [];
      const at: number[] = [];
      let bytes = 2;
      let more = false;
      try {
        for await (const row of readRows(input, format, name)) {
          const size = Buffer.byteLength(row.json) + (rows.length ? 1 : 0);
          if (rows.length === TEST_ROWS || bytes + size > TEST_BYTES) {
            if (rows.length === 0) throw usageError(`${placeOf(format, row.at)} of ${name} is over the dry run's ${TEST_BYTES / 1024} KiB`);
            more = true;
            break;
          }
          rows.push(row.json);
          at.push(row.at);
          bytes += size;
        }
      } finally {
        input.destroy();
      }
      if (rows.length === 0) throw usageError(`no rows in ${name}`);

      // ask Floe
      const { api } = await c.session();
      // As send sends them: the rows' JSON text as written (see sendFile in sink-send.ts).
      const answer = await ok(api.http.POST('/v1/sinks/{sink_id}/test', { params: { path: { sink_id: sink } }, body: [], bodySerializer: () => `[${rows.join(',')}]` }));

      // answer
      c.out.result(answer, (a) => {
        c.out.fields([
          ['table', a.table], ['columns', a.columns.map((col) => `${col.name} ${col.type}${col.required ? ' (required)' : ''}`).join(', ')],
          ['rows', a.elements], ['would append', a.accepted], ['would refuse', a.rejected],
        ]);
        if (a.reasons.length) {
          c.out.line('');
          c.out.table(['ROW', 'STAGE', 'REASON'], a.reasons.map((r) => [placeOf(format, at[r.index] ?? r.index + 1), r.stage, r.reason]));
        }
        if (more) c.out.note(`Tested the first ${rows.length} rows of ${name} (at most ${TEST_ROWS} and ${TEST_BYTES / 1024} KiB).`);
        const o = a.options;
        if (o.preset !== 'as_is' || o.strip_fields.length || o.required_field) {
          c.out.note(`The sink's device options (preset ${o.preset}${o.strip_fields.length ? `, stripping ${o.strip_fields.join(', ')}` : ''}${o.required_field ? `, requiring ${o.required_field}` : ''}) were applied as the device route would; \`floe sinks send\` stores rows unchanged.`);
        }
        c.out.note('A dry run: nothing was stored.');
      });
    })), ['floe sinks test events_in events.ndjson', 'head -n 20 events.ndjson | floe sinks test events_in -', 'floe sinks test events_in export.csv --json']);

  examples(sinks.command('rejects')
    .description('the rows a sink\'s rolls turned away because they did not fit the table: counts, recent examples, and the reject files')
    .argument('<sink>', 'the sink\'s name or id')
    .option('--limit <n>', 'examples to print (with --json: all Floe gives)', wholeNumber(1), 10)
    .action(act(io, async (c, sinkArg: string, opts: { limit: number }) => {
      const sink = await getSink(c, sinkArg);
      const { rejects } = sink;
      c.out.result({ sink_id: sink.sink_id, name: sink.name, warehouse_name: sink.warehouse_name, rejects }, () => {
        if (rejects.rows === 0) return c.out.note(`No rows turned away by sink ${sink.name} so far${sink.last_roll ? '' : ' (it has not rolled yet)'}.`);
        const reasons = new Map<string, number>();
        for (const roll of rejects.recent) for (const [reason, n] of Object.entries(roll.reasons)) reasons.set(reason, (reasons.get(reason) ?? 0) + n);
        c.out.line(`${counted(rejects.rows, 'row')} turned away in all, ${counted(rejects.files, 'reject file')} kept ${rejects.age_out_days} days. The latest rolls with rejects, by reason:`);
        c.out.table(['ROWS', 'REASON'], [...reasons].map(([reason, n]) => [n, reason]));
        const examples = rejects.recent.flatMap((roll) => roll.examples.map((e) => [roll.at, e.reason, excerpt(e.raw), `${e.batch_id}:${e.line}`])).slice(0, opts.limit);
        if (examples.length) {
          c.out.line('');
          c.out.table(['ROLL AT', 'REASON', 'ROW', 'BATCH:LINE'], examples);
        }
        const files = rejects.recent.map((r) => r.file).filter((f): f is string => f !== null);
        if (files.length && rejects.bucket === sink.bucket) {
          c.out.line('');
          for (const f of files) c.out.line(f);
          c.out.note(`The reject files above are in the catalog's blob bucket: \`floe blobs get ${sink.warehouse_name} <key>\` fetches one (all under ${rejects.prefix}).`);
        } else if (files.length) {
          c.out.note(`Reject files are under ${rejects.prefix} in bucket ${rejects.bucket}.`);
        }
      });
    })), ['floe sinks rejects events_in', 'floe sinks rejects events_in --limit 50', 'floe sinks rejects events_in --json | jq ".rejects.recent[0].reasons"']);
}

/** The lines `show` prints (and `create`, for the new sink). */
function sinkFields(s: SinkShown): Array<[string, unknown]> {
  const roll = [`every ${s.roll.seconds} s`, `at ${s.roll.bytes % MIB === 0 ? `${s.roll.bytes / MIB} MiB` : bytesText(s.roll.bytes)} waiting`, ...(s.roll.inactivity_seconds ? [`after ${s.roll.inactivity_seconds} s quiet`] : [])];
  return [
    ['sink id', s.sink_id], ['name', s.name], ['catalog', s.warehouse_name], ['table', s.table],
    ['state', s.disabled_reason ? `${s.state} (${s.disabled_reason})` : s.state],
    ['rolls', `${roll.join(', or ')}; ${s.roll.count} so far`],
    ['waiting', `${s.lag.batches_waiting} batches (${bytesText(s.lag.bytes_waiting)})${s.lag.seconds_behind ? `, ${s.lag.seconds_behind} s behind` : ''}`],
    ['received', `${s.received.rows.toLocaleString('en-US')} rows in ${s.received.batches} batches (${bytesText(s.received.bytes)})${s.received.rejected_elements ? `; ${s.received.rejected_elements} refused at intake` : ''}`],
    ['last roll', s.last_roll ? `${s.last_roll.at}: ${s.last_roll.rows.toLocaleString('en-US')} rows from ${s.last_roll.batches} batches${s.last_roll.rejected_rows ? `, ${s.last_roll.rejected_rows} rejected` : ''}` : 'none yet'],
    ['rejects', s.rejects.rows ? `${s.rejects.rows.toLocaleString('en-US')} rows (floe sinks rejects ${s.name})` : 'none'],
    ['send url', s.send_url],
    ['device', s.device.enabled ? s.device.url : 'off'],
    ['created', s.created_at], ['deleted', s.deleted_at ?? undefined],
  ];
}

/** A raw rejected row, shortened for a table cell. */
const excerpt = (raw: string) => (raw.length > 80 ? `${raw.slice(0, 79)}…` : raw);

