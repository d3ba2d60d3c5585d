// What can go wrong in `floe`, and how each failure reads on the terminal.
// Every failure ends as one of these classes so main.ts can print it without
// a stack, as one line with Floe's code and a remedy, and pick the exit code:
// 1 Floe refused (a 4xx) or the command failed, 2 the command line is wrong
// or incomplete, 3 not logged in or the credential refused or too weak (401,
// 403), 4 Floe failed or could not be reached (5xx, no answer).

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_AUTH = 3;
export const EXIT_SERVER = 4;

/** The spec's error envelope `{error:{code, message, request_id, remedy?, …}}`, as far as the CLI reads it. */
export interface Envelope {
  code: string;
  message: string;
  request_id?: string;
  remedy?: string;
  cli_outdated?: unknown;
  [extra: string]: unknown;
}

/** Floe answered with an error envelope. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly envelope: Envelope, readonly url: string) {
    super(envelope.message);
    this.name = 'ApiError';
  }
  get code(): string {
    return this.envelope.code;
  }
}

/** The request never got an answer (refused, DNS, timeout, TLS). */
export class NetworkError extends Error {
  constructor(readonly url: string, readonly reason: string) {
    super(`could not reach ${url}: ${reason}`);
    this.name = 'NetworkError';
  }
}

/** A failure the CLI itself decided on (denied login, not logged in, …); `exitCode` 1 unless a usage error. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT_FAILED, readonly hint?: string, readonly code?: string) {
    super(message);
    this.name = 'CliError';
  }
}

/** Another failure plus one more sentence for the person (what was kept, what to do next). */
export class Hinted extends Error {
  constructor(readonly failure: unknown, readonly hint: string) {
    super(failure instanceof Error ? failure.message : String(failure));
    this.name = 'Hinted';
  }
}

export const usageError = (message: string, hint?: string) => new CliError(message, EXIT_USAGE, hint);

/** A failure a later try may not meet: no answer, Floe failing (5xx), or asked to slow down (429). */
export const passingFailure = (err: unknown): boolean => err instanceof NetworkError || (err instanceof ApiError && (err.status >= 500 || err.status === 429));

/**
 * Reads an error envelope out of a parsed body; null when the body is not one.
 * The flat OAuth form `{error, error_description}` is read too, in case a
 * device-poll answer arrives in it (the spec puts those in the envelope).
 */
export function envelopeOf(body: unknown): Envelope | null {
  const err = (body as { error?: unknown } | null)?.error;
  if (typeof err === 'string') {
    const description = (body as { error_description?: unknown }).error_description;
    return { code: err, message: typeof description === 'string' ? description : err };
  }
  if (!err || typeof err !== 'object') return null;
  const e = err as Record<string, unknown>;
  if (typeof e.code !== 'string') return null;
  return { ...e, code: e.code, message: typeof e.message === 'string' ? e.message : e.code } as Envelope;
}

/** What to do about a refusal whose envelope names no remedy, by code (then by status). */
const REMEDIES: Record<string, string> = {
  insufficient_role: 'ask an admin of the organisation, or log in as an admin agent: floe auth login --role admin',
  forbidden: 'your level or role does not allow this; see `floe catalogs list` for your level, or ask an admin',
  person_required: 'this is a person\'s act: do it signed in on the console',
  quota_exceeded: 'see `floe usage`; delete data, or ask for a higher limit',
  limit_exceeded: 'see `floe usage` for the limit and what counts against it',
  warehouse_not_found: 'see `floe catalogs list` (and `floe catalogs deleted`) for the names you can use',
  table_not_found: 'see `floe tables list <catalog>`',
  namespace_not_found: 'see `floe tables list <catalog>`',
  // The Iceberg REST catalog's refusals carry its exception type as the code (catalog-client.ts).
  NoSuchTableException: 'see `floe tables list <catalog>`',
  NoSuchNamespaceException: 'see `floe tables list <catalog>`',
  sink_not_found: 'see `floe sinks list`',
  warehouse_deleting: 'the catalog is deleted and waits for its grace period to end: `floe catalogs restore <catalog>` brings it back',
  not_deleted: 'the catalog is live; `floe catalogs deleted` lists the ones that can be restored',
  not_restorable: 'its grace period has ended; a deleted catalog cannot come back after it',
  project_not_found: 'see `floe catalogs list` for the projects your catalogs are in',
  already_exists: 'pick another name, or use the one that exists',
  invalid_name: 'use lowercase letters, digits and single underscores, starting with a letter',
  provisioning: 'the catalog is still being set up; try again in half a minute',
  rate_limited: 'wait a little and try again',
  send_only: 'the send route takes a sink\'s send key: floe sinks send uses the one `floe sinks create` stored, or --send-key-file',
  invalid_key: 'the send key was refused; pass the sink\'s current key with --send-key-file',
};

const UNREACHABLE_REMEDY = 'check the address (--base-url, FLOE_BASE_URL) and your network';

export function remedyFor(status: number, e: Envelope): string {
  if (e.remedy) return e.remedy;
  if (typeof e.suggestion === 'string' && e.suggestion) return `try "${e.suggestion}"`;
  const known = REMEDIES[e.code];
  if (known) return e.code === 'rate_limited' && typeof e.retry_after_seconds === 'number' ? `wait ${e.retry_after_seconds} s and try again` : known;
  if (status === 401) return 'the key was refused: run `floe auth login` again, or check FLOE_API_KEY';
  if (status >= 500) return 'Floe failed; try again, and quote the request id if it keeps failing';
  return 'see `floe <command> --help`';
}

export function exitCodeFor(status: number): number {
  if (status === 401 || status === 403) return EXIT_AUTH;
  if (status >= 500) return EXIT_SERVER;
  return EXIT_FAILED;
}

/** The lines printed to stderr for a failure, and the exit code. Never a stack; a refusal is one line. */
export function describeFailure(err: unknown): { lines: string[]; exitCode: number } {
  if (err instanceof Hinted) {
    const inner = describeFailure(err.failure);
    return { lines: [...inner.lines, err.hint], exitCode: inner.exitCode };
  }
  if (err instanceof ApiError) {
    const e = err.envelope;
    const lines = [`error: ${e.code}: ${e.message} (HTTP ${err.status}) — ${remedyFor(err.status, e)}${e.request_id ? ` [request ${e.request_id}]` : ''}`];
    const outdated = outdatedNote(e.cli_outdated);
    if (outdated) lines.push(outdated);
    return { lines, exitCode: exitCodeFor(err.status) };
  }
  if (err instanceof NetworkError) return { lines: [`error: ${err.message} — ${UNREACHABLE_REMEDY}`], exitCode: EXIT_SERVER };
  if (err instanceof CliError) {
    return { lines: [`error: ${err.message}${err.hint ? ` — ${err.hint}` : ''}`], exitCode: err.exitCode };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { lines: [`error: ${message}`], exitCode: EXIT_FAILED };
}

/** A failure as one JSON line for `--json` callers: Floe's envelope, or one the CLI makes in its shape. */
export function failureJson(err: unknown): string {
  const inner = err instanceof Hinted ? err.failure : err;
  const { exitCode } = describeFailure(err);
  if (inner instanceof ApiError) return JSON.stringify({ error: { ...inner.envelope, remedy: remedyFor(inner.status, inner.envelope) }, status: inner.status, exit_code: exitCode });
  const code = inner instanceof NetworkError ? 'unreachable' : (inner instanceof CliError && inner.code) || (exitCode === EXIT_USAGE ? 'usage' : exitCode === EXIT_AUTH ? 'not_authenticated' : 'failed');
  const hint = inner instanceof CliError ? inner.hint : err instanceof Hinted ? err.hint : inner instanceof NetworkError ? UNREACHABLE_REMEDY : undefined;
  return JSON.stringify({ error: { code, message: inner instanceof Error ? inner.message : String(inner), ...(hint ? { remedy: hint } : {}) }, exit_code: exitCode });
}

/** `cli_outdated` may be a sentence, `true`, or an object naming the published version. */
export function outdatedNote(value: unknown): string | null {
  if (value === undefined || value === null || value === false) return null;
  if (typeof value === 'string') return `note: ${value}`;
  const latest = typeof value === 'object' ? (value as Record<string, unknown>).latest ?? (value as Record<string, unknown>).version : undefined;
  return `note: this floe is older than the published one${latest ? ` (${String(latest)})` : ''}; update with: npm install -g @floe/cli`;
}
