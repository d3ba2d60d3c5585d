// What a command may touch outside itself: the environment, the two output
// streams and the config directory. Passed in (never read from globals inside
// a command) so one process can run many commands the same way main.ts does.
import { configDir } from './config-store.js';

export interface Io {
  env: NodeJS.ProcessEnv;
  /** Results a script may capture: tables, JSON, recipes. */
  out: (text: string) => void;
  /** Everything said to the person: progress, notes, errors. */
  err: (text: string) => void;
  configDir: string;
  /** All of standard input (for `login --with-key`). */
  readInput: () => Promise<string>;
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
  };
}
