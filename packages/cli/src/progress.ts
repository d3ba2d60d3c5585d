// Progress for long work, on stderr only. On a terminal (stderr a TTY, TERM
// not dumb, not CI) a spinner whose text updates, or a bar with the count
// and rate; anywhere else no spinner and no bar: a waiting line says only its
// success, a bar its start and its end, as plain lines, so logs read cleanly
// and a refusal stays the one line the error prints.
import yoctoSpinner from 'yocto-spinner';
import { interactive, type Io } from './io.js';

export interface Progress {
  update(text: string): void;
  succeed(text: string): void;
  fail(text: string): void;
}

export function startProgress(io: Io, text: string): Progress {
  if (interactive(io, 'err') && io.progressStream) {
    const spinner = yoctoSpinner({ text, stream: io.progressStream }).start();
    return {
      update: (t) => { spinner.text = t; },
      succeed: (t) => { spinner.success(t); },
      fail: (t) => { spinner.error(t); },
    };
  }
  // Off a terminal only the outcome that is news: a failure is said by the error that follows it.
  return { update: () => {}, succeed: (t) => io.err(t), fail: () => {} };
}

export interface Bar {
  /** Advances to `done` of the total (and says what else in `detail`). */
  tick(done: number, detail?: string): void;
  end(text: string): void;
  fail(text: string): void;
}

const WIDTH = 24;

/** `1.5 MB`, `320 KB`: decimal units as the storage tables use. */
export function bytesText(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i += 1; }
  return `${i === 0 ? v : v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

/** The bar's line: `label [#####-----]  45%  45,000/100,000 rows  3.1 MB/s`. Pure. */
export function barLine(label: string, done: number, total: number, unit: 'bytes' | 'rows', seconds: number, detail = ''): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(fraction * WIDTH);
  const count = unit === 'bytes' ? `${bytesText(done)}/${bytesText(total)}` : `${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} rows`;
  const rate = seconds > 0 && unit === 'bytes' ? `  ${bytesText(done / seconds)}/s` : seconds > 0 ? `  ${Math.round(done / seconds).toLocaleString('en-US')} rows/s` : '';
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%  ${count}${rate}${detail ? `  ${detail}` : ''}`;
}

export function startBar(io: Io, label: string, total: number, unit: 'bytes' | 'rows'): Bar {
  const started = Date.now();
  const stream = io.progressStream;
  if (interactive(io, 'err') && stream) {
    let last = 0;
    const draw = (done: number, detail?: string) => stream.write(`\r\x1b[2K${barLine(label, done, total, unit, (Date.now() - started) / 1000, detail)}`);
    draw(0);
    return {
      tick: (done, detail) => {
        // A redraw at most every 100 ms: a fast loop must not spend its time on the terminal.
        if (Date.now() - last < 100 && done < total) return;
        last = Date.now();
        draw(done, detail);
      },
      end: (text) => { draw(total); stream.write(`\n${text}\n`); },
      fail: (text) => { stream.write(`\n${text}\n`); },
    };
  }
  io.err(`${label}: ${unit === 'bytes' ? bytesText(total) : `${total.toLocaleString('en-US')} rows`}…`);
  return { tick: () => {}, end: (text) => io.err(text), fail: () => {} };
}
