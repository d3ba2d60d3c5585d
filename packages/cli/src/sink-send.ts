// The machinery of `floe sinks send`: which sink and which send key (the
// send route takes a sink id and a send key, never an API key), and the file
// posted in batches. Batch ids come from the file's content and the batch
// caps (sink-batches.ts), so a re-run after a failure sends only what Floe
// does not hold yet: a batch it already holds is answered as a duplicate and
// not stored again. A new sink's send key is kept with the profile that made
// it (logins.ts) so that a later send finds it there.
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { FloeApi, ok } from './api-client.js';
import type { Ctx } from './command.js';
import { requireBaseUrl } from './context.js';
import { CliError, EXIT_AUTH, Hinted, usageError } from './errors.js';
import type { Io } from './io.js';
import { rememberSendKey, sendKeyOf } from './logins.js';
import type { StoredLogin } from './profiles.js';
import { startBar } from './progress.js';
import { storeOf } from './secret-store.js';
import { batchId, cutBatches, eachInParallel, fileHash, placeOf, readRows, withRetries, type BatchCaps, type RowFormat } from './sink-batches.js';

/** Batches in flight at once: enough to hide a round trip, few enough to leave the gateway to others. */
const IN_FLIGHT = 3;
/** A batch of 8 MiB on a slow uplink takes its time. */
const SEND_TIMEOUT_MS = 120_000;
/** Intake refusals printed after a send; the rest are counted. */
const SHOWN_REFUSALS = 5;
const SINK_ID = /^snk_[A-Za-z0-9]+$/;

/** `1 row`, `2,000 rows`. */
export const counted = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** A usage error unless `path` is a file: the rows `send` and `test` read, a send key file. */
export function requireFile(path: string): void {
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch {
    throw usageError(`no file ${path}`);
  }
  if (!isFile) throw usageError(`${path} is not a file`);
}

/** Keeps a new sink's send key with the profile; says where, or why not. */
export async function keepSendKey(io: Io, login: StoredLogin, sinkId: string, sendKey: string): Promise<{ profile: string; where?: string; failure?: string }> {
  try {
    await rememberSendKey(io, login.name, sinkId, sendKey);
    return { profile: login.name, where: (await storeOf(io.configDir, login.secret_store)).where };
  } catch (err) {
    return { profile: login.name, failure: err instanceof Error ? err.message : String(err) };
  }
}

export interface SendTarget {
  sinkId: string;
  name: string;
  /** A client holding the send key. */
  send: FloeApi;
}

/** GET /v1/sinks/{sink_id}: a sink by its id or name. */
export const sinkNamed = (api: FloeApi, sink: string) => ok(api.http.GET('/v1/sinks/{sink_id}', { params: { path: { sink_id: sink } } }));

/** The sink's id (the send route takes no name) and a client with its send key: --send-key-file, FLOE_SEND_KEY, or the profile's. */
export async function sendTarget(c: Pick<Ctx, 'io' | 'g' | 'session'>, sinkArg: string, keyFile: string | undefined): Promise<SendTarget> {
  const given = keyFile ? readKeyFile(keyFile) : c.io.env.FLOE_SEND_KEY?.trim() || null;
  let session;
  try {
    session = await c.session();
  } catch (err) {
    // A machine that only sends may hold the send key alone: with the sink's id, nothing needs looking up.
    if (given && SINK_ID.test(sinkArg) && err instanceof CliError && err.code === 'not_logged_in') {
      const baseUrl = requireBaseUrl(c.g.baseUrl, c.io.env, null).value;
      return { sinkId: sinkArg, name: sinkArg, send: new FloeApi(baseUrl, given, { timeoutMs: SEND_TIMEOUT_MS }) };
    }
    if (given && err instanceof CliError && err.code === 'not_logged_in') throw new Hinted(err, 'With a send key alone, name the sink by its id (snk_…): a name is looked up with an API key.');
    throw err;
  }
  const sink = await sinkNamed(session.api, sinkArg);
  const key = given ?? (session.login ? await sendKeyOf(c.io, session.login.name, sink.sink_id) : null);
  if (!key) {
    throw new CliError(`no send key for sink ${sink.name} (${sink.sink_id})`, EXIT_AUTH,
      `Pass it with --send-key-file <path> or FLOE_SEND_KEY. It was shown once, by \`floe sinks create\`${session.login ? `; profile "${session.login.name}" did not make this sink` : ''}. A lost key is replaced by deleting and re-creating the sink.`);
  }
  return { sinkId: sink.sink_id, name: sink.name, send: session.api.as(key, { timeoutMs: SEND_TIMEOUT_MS }) };
}

function readKeyFile(path: string): string {
  requireFile(path);
  const key = readFileSync(path, 'utf8').trim();
  if (!key) throw usageError(`${path} is empty; it should hold the sink's send key`);
  return key;
}

export interface SendSummary {
  result: { sink_id: string; file: string; batches: number; sent: number; duplicates: number; accepted: number; rejected: number; bytes: number };
  /** The first intake refusals of the batches this run stored, as `line 12: not an object (got number)`. */
  refusals: string[];
  /** All of them (a duplicate's answer counts its refusals but names none). */
  refusedNow: number;
}

/**
 * Sends a file's rows: one pass to hash it and one to count its rows and
 * batches (so an unreadable row stops everything before the first batch
 * goes), then the batches, a few at a time, each retried after a passing
 * failure. A file that grows or changes is other content: every batch of it
 * has a new id, so send files once they are complete.
 */
export async function sendFile(c: Pick<Ctx, 'io' | 'out'>, target: SendTarget, file: string, format: RowFormat, caps: BatchCaps): Promise<SendSummary> {
  // plan
  const before = statSync(file);
  const { sha256 } = await fileHash(file);
  const rowsOf = () => readRows(createReadStream(file), format, file);
  let rows = 0;
  let batches = 0;
  for await (const b of cutBatches(rowsOf(), caps, format)) { rows += b.rows; batches += 1; }
  const after = statSync(file);
  if (after.size !== before.size || after.mtimeMs !== before.mtimeMs) {
    throw usageError(`${file} changed while floe read it`, 'Send a file once it is complete: its batch ids come from its content, so a re-run must see the same bytes.');
  }
  const result = { sink_id: target.sinkId, file, batches, sent: 0, duplicates: 0, accepted: 0, rejected: 0, bytes: 0 };
  const refusals: string[] = [];
  if (rows === 0) {
    c.out.note(`No rows in ${file}: nothing to send.`);
    return { result, refusals, refusedNow: 0 };
  }

  // send
  const key = { fileHash: sha256, format, caps };
  const bar = startBar(c.io, `Sending ${file}`, rows, 'rows');
  let done = 0;
  let refusedNow = 0;
  try {
    await eachInParallel(cutBatches(rowsOf(), caps, format), IN_FLIGHT, async (batch) => {
      const answer = await withRetries(() => ok(target.send.http.POST('/v1/sinks/{sink_id}', {
        params: { path: { sink_id: target.sinkId } },
        headers: { 'Idempotency-Key': batchId(key, batch.index), 'Content-Type': 'application/json' },
        // The rows go as the file wrote them (the batch's JSON text): parsing and printing them again would round integers past 2^53.
        // The typed body is only what openapi-fetch hands the serializer, which does not read it.
        body: [],
        bodySerializer: () => batch.body,
      })));
      if ('duplicate' in answer) {
        result.duplicates += 1;
      } else {
        result.sent += 1;
        result.bytes += batch.bytes;
        refusedNow += answer.rejected;
        for (const r of answer.reasons) if (refusals.length < SHOWN_REFUSALS) refusals.push(`${placeOf(format, batch.at[r.index])}: ${r.reason} (got ${r.got})`);
      }
      result.accepted += answer.accepted;
      result.rejected += answer.rejected;
      done += batch.rows;
      bar.tick(done);
    });
  } catch (err) {
    const taken = result.sent + result.duplicates;
    bar.fail(`Stopped: ${taken} of ${counted(batches, 'batch', 'batches')} ${taken === 1 ? 'is' : 'are'} with Floe.`);
    throw taken ? new Hinted(err, 'What was sent stays sent: re-run the same command to send the rest; batches already sent are skipped.') : err;
  }
  bar.end(`Done: ${counted(batches, 'batch', 'batches')}, ${result.sent} sent now${result.duplicates ? `, ${result.duplicates} sent before` : ''}.`);
  return { result, refusals, refusedNow };
}
