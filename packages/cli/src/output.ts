// How a command prints its result. With --json: Floe's answer (or the
// command's own stable shape) as JSON on stdout, one object per line for
// streams (NDJSON). Without: an aligned table with a header on a terminal,
// tab-separated rows without a header when stdout is a pipe (for cut, awk
// and sort). Notes, progress and prompts go to stderr only, so stdout is
// always safe to capture.
import { interactive, type Io } from './io.js';
import { renderTable } from './table.js';

export class Output {
  constructor(private readonly io: Io, readonly json: boolean) {}

  /** The result: its JSON with --json, else what `human` prints. */
  result<T>(value: T, human: (value: T) => void): void {
    if (this.json) this.io.out(JSON.stringify(value, null, 2));
    else human(value);
  }

  /** One item of a stream: a JSON line with --json, else what `human` prints. */
  item<T>(value: T, human: (value: T) => void): void {
    if (this.json) this.io.out(JSON.stringify(value));
    else human(value);
  }

  /** Rows for a person (aligned, with a header) or a pipe (tab-separated, no header). */
  table(header: string[], rows: Array<Array<string | number | boolean | null | undefined>>): void {
    const cells = rows.map((r) => r.map((c) => (c === null || c === undefined || c === '' ? '-' : String(c))));
    if (interactive(this.io, 'out')) {
      if (cells.length) this.io.out(renderTable(header, cells));
    } else {
      for (const r of cells) this.io.out(r.map((c) => c.replace(/[\t\n]/g, ' ')).join('\t'));
    }
  }

  /** `key: value` lines for one resource. */
  fields(pairs: Array<[string, unknown]>): void {
    const width = Math.max(...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs) {
      if (v === undefined) continue;
      this.io.out(`${`${k}:`.padEnd(width + 1)} ${v === null ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
    }
  }

  /** A plain line of the result (a recipe, a URL). */
  line(text: string): void {
    this.io.out(text);
  }

  /** A sentence for the person, never part of the result. */
  note(text: string): void {
    this.io.err(text);
  }
}
