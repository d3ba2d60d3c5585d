// What can go wrong in `floe`, and how each failure reads on the terminal.
// Every failure ends as one of these classes so main.ts can print it without
// a stack and pick the exit code: 1 when Floe (or the network) refused or
// failed, 2 when the command line itself is wrong or incomplete.

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

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
  constructor(message: string, readonly exitCode: number = EXIT_FAILED, readonly hint?: string) {
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

/** The lines printed to stderr for a failure, and the exit code. Never a stack. */
export function describeFailure(err: unknown): { lines: string[]; exitCode: number } {
  if (err instanceof Hinted) {
    const inner = describeFailure(err.failure);
    return { lines: [...inner.lines, err.hint], exitCode: inner.exitCode };
  }
  if (err instanceof ApiError) {
    const e = err.envelope;
    const lines = [`error: ${e.message} (${e.code}, HTTP ${err.status})`];
    if (e.remedy) lines.push(`remedy: ${e.remedy}`);
    else if (err.status === 401) lines.push('remedy: the key was refused; run `floe login` again, or check FLOE_API_KEY');
    const outdated = outdatedNote(e.cli_outdated);
    if (outdated) lines.push(outdated);
    if (e.request_id) lines.push(`request id: ${e.request_id}`);
    return { lines, exitCode: EXIT_FAILED };
  }
  if (err instanceof NetworkError) return { lines: [`error: ${err.message}`], exitCode: EXIT_FAILED };
  if (err instanceof CliError) {
    return { lines: [`error: ${err.message}`, ...(err.hint ? [err.hint] : [])], exitCode: err.exitCode };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { lines: [`error: ${message}`], exitCode: EXIT_FAILED };
}

/** `cli_outdated` may be a sentence, `true`, or an object naming the published version. */
export function outdatedNote(value: unknown): string | null {
  if (value === undefined || value === null || value === false) return null;
  if (typeof value === 'string') return `note: ${value}`;
  const latest = typeof value === 'object' ? (value as Record<string, unknown>).latest ?? (value as Record<string, unknown>).version : undefined;
  return `note: this floe is older than the published one${latest ? ` (${String(latest)})` : ''}; update with: npm install -g @floe/cli`;
}
