// A progress line for waits. On a terminal (stderr a TTY, TERM not dumb, not
// CI) it is a spinner whose text updates; anywhere else two plain lines, the
// start and the outcome (updates are dropped), so logs and tests read cleanly. Always on stderr: stdout carries
// only what a script may want to capture.
import yoctoSpinner from 'yocto-spinner';

export interface Progress {
  update(text: string): void;
  succeed(text: string): void;
  fail(text: string): void;
}

export const isInteractive = (stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env) =>
  Boolean(stream.isTTY) && env.TERM !== 'dumb' && !env.CI;

export function startProgress(text: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (isInteractive(stream)) {
    const spinner = yoctoSpinner({ text, stream }).start();
    return {
      update: (t) => { spinner.text = t; },
      succeed: (t) => { spinner.success(t); },
      fail: (t) => { spinner.error(t); },
    };
  }
  const line = (t: string) => { stream.write(`${t}\n`); };
  line(text);
  return { update: () => {}, succeed: line, fail: line };
}
