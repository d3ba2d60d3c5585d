import winston from 'winston';

export type Logger = winston.Logger;

// winston's json format writes an Error nested in a line's meta as `{}` (its
// fields are not enumerable), so the one line that should explain a 500 lost
// the exception. This format turns every Error in the meta into its name,
// message, stack and code. A Postgres error keeps only those: its detail,
// where, internal query and the values in its message can be a row's data
// (a key, an address), and logs are kept and shipped more widely than rows.

const MAX_DEPTH = 4;

// Quoted words after these name a part of the schema, which helps and leaks
// nothing; any other quoted text in a Postgres message is a value.
const IDENTIFIER_WORDS = /(?:relation|table|column|constraint|index|schema|type|function|sequence|database|role|extension|operator|parameter|trigger|view|encoding|cursor|statement|savepoint|collation|domain|enum|policy|publication|subscription|tablespace|user)\s$/i;

interface LoggedError {
  name: string;
  message: string;
  stack?: string;
  code?: string | number;
  cause?: LoggedError;
}

/** node-postgres' DatabaseError (its `name` is the protocol's "error"); by shape, so any copy of pg counts. */
function isDatabaseError(err: Error): boolean {
  const e = err as Error & { severity?: unknown; routine?: unknown };
  return err.constructor?.name === 'DatabaseError' || (typeof e.severity === 'string' && typeof e.routine === 'string');
}

/** Replaces quoted values in a Postgres message with "[redacted]", keeping quoted identifiers. */
function redactQuotedValues(message: string): string {
  return message.replace(/"(?:[^"]|"")*"/g, (quoted, offset: number) =>
    IDENTIFIER_WORDS.test(message.slice(Math.max(0, offset - 20), offset)) ? quoted : '"[redacted]"');
}

function loggedError(err: Error, depth = 0): LoggedError {
  const db = isDatabaseError(err);
  const message = db ? redactQuotedValues(err.message) : err.message;
  const out: LoggedError = { name: db ? 'DatabaseError' : err.name, message };
  if (err.stack) out.stack = db ? err.stack.replace(err.message, message) : err.stack;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  if (err.cause instanceof Error && depth < MAX_DEPTH) out.cause = loggedError(err.cause, depth + 1);
  return out;
}

function serialise(value: unknown, depth: number): unknown {
  if (value instanceof Error) return loggedError(value);
  if (depth >= MAX_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.some((v) => typeof v === 'object' && v !== null) ? value.map((v) => serialise(v, depth + 1)) : value;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  let copy: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(value)) {
    const s = serialise(v, depth + 1);
    if (s !== v) (copy ??= { ...value } as Record<string, unknown>)[k] = s;
  }
  return copy ?? value;
}

/** Every Error in a line's meta, at any depth up to MAX_DEPTH, as a LoggedError; the line's other values unchanged. */
const errorsInMeta = winston.format((info) => {
  for (const [k, v] of Object.entries(info)) {
    const s = serialise(v, 1);
    if (s !== v) info[k] = s;
  }
  return info;
});

/** The format of every deployable's log: a timestamp, errors serialised, one JSON object per line. */
export function logFormat(): winston.Logform.Format {
  return winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), errorsInMeta(), winston.format.json());
}

/** Structured JSON logs, one object per line, tagged with the deployable's name. */
export function createLogger(service: string, level = 'info'): Logger {
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: logFormat(),
    transports: [new winston.transports.Console()],
  });
}
