// What every command's action gets: the io, the global options, the output
// (--json or text), the session (opened on first use), and confirmation.
// `act` adapts commander's (…arguments, options, command) call to
// `(ctx, …arguments, options)`; `examples` adds the `Examples:` block every
// command's --help ends with.
import type { Command } from 'commander';
import type { ApiOptions } from './api-client.js';
import { CliError, usageError } from './errors.js';
import { interactive, type Io } from './io.js';
import { Output } from './output.js';
import { globalsOf, openSession, type Globals, type Session } from './session.js';

export interface Ctx {
  io: Io;
  g: Globals;
  out: Output;
  session: (opts?: ApiOptions) => Promise<Session>;
  /** Asks before something that cannot be undone: --yes answers yes; off a terminal without --yes it is a usage error. */
  confirm: (what: string, typed?: string) => Promise<void>;
}

export function ctxOf(io: Io, cmd: Command): Ctx {
  const g = globalsOf(cmd);
  let opened: Promise<Session> | null = null;
  return {
    io,
    g,
    out: new Output(io, Boolean(g.json)),
    session: (opts) => (opened ??= openSession(io, g, opts)),
    confirm: async (what, typed) => {
      if (g.yes) return;
      if (!interactive(io, 'in') || !interactive(io, 'err') || !io.ask) {
        throw usageError(`${what}: not confirmed`, 'Not on a terminal, so floe cannot ask: pass --yes to confirm.');
      }
      const answer = (await io.ask(typed ? `${what}. Type "${typed}" to confirm: ` : `${what}. Continue? [y/N] `)).trim();
      const yes = typed ? answer === typed : /^y(es)?$/i.test(answer);
      if (!yes) throw new CliError('not confirmed; nothing was changed', 1, undefined, 'not_confirmed');
    },
  };
}

/** An action over the context: commander calls it with the arguments, the options and the command. */
export function act<A extends unknown[]>(io: Io, fn: (ctx: Ctx, ...args: A) => Promise<void>) {
  return async (...all: unknown[]) => {
    const cmd = all[all.length - 1] as Command;
    await fn(ctxOf(io, cmd), ...(all.slice(0, -1) as A));
  };
}

/** Adds the `Examples:` block to a command's help. */
export function examples(cmd: Command, lines: string[]): Command {
  return cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}`);
}

/** Repeatable options: `--catalog a --catalog b`. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];
