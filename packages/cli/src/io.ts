// What a command may touch outside itself: the environment, the two output
// streams, whether each is a terminal, a way to ask the person a question,
// and the config directory. Passed in (never read from globals inside a
// command) so one process can run many commands the same way main.ts does.
import { createInterface } from 'node:readline/promises';
import { configDir } from './profiles.js';

export interface Io {
  env: NodeJS.ProcessEnv;
  /** Results a script may capture: tables, JSON, recipes. */
  out: (text: string) => void;
  /** Everything said to the person: progress, notes, errors. */
  err: (text: string) => void;
  configDir: string;
  /** All of standard input (for `login --with-key`). */
  readInput: () => Promise<string>;
  /** Whether stdout / stderr / stdin are terminals: tables and prompts only there, progress bars only on a terminal stderr. */
  tty?: { out: boolean; err: boolean; in: boolean };
  /** Asks one question on stderr and answers the line typed (only called when stdin and stderr are terminals). */
  ask?: (question: string) => Promise<string>;
  /** Raw stderr for progress bars (absent in tests: progress prints plain lines). */
  progressStream?: NodeJS.WriteStream;
}

/** Terminals as the person sees them: a dumb terminal or CI counts as none. */
export function interactive(io: Io, which: 'out' | 'err' | 'in'): boolean {
  return Boolean(io.tty?.[which]) && io.env.TERM !== 'dumb' && !io.env.CI;
}

export function processIo(): Io {
  return {
    env: process.env,
    out: (t) => process.stdout.write(`${t}\n`),
    err: (t) => process.stderr.write(`${t}\n`),
    configDir: configDir(process.env),
    readInput: async () => {
      if (process.stdin.isTTY) return '';
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    tty: { out: Boolean(process.stdout.isTTY), err: Boolean(process.stderr.isTTY), in: Boolean(process.stdin.isTTY) },
    ask: async (question) => {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return await rl.question(question);
      } finally {
        rl.close();
      }
    },
    progressStream: process.stderr,
  };
}
