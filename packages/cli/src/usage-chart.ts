// A catalog's storage over the days of `floe usage`, drawn for a terminal:
// one line per day with the date, the bytes and a bar scaled to the largest
// day, in eighths of a character so small changes still show. A day without
// a sample says `unmetered` and has no bar; a day with bytes too few to fill
// an eighth still gets the thinnest bar, so it never reads as empty. Pure.
import { bytesText } from './progress.js';

export interface DayBytes {
  day: string;
  /** null: no storage sample that day (before the first sample, or the catalog did not exist). */
  bytes: number | null;
}

const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const FULL = '█';

/** A bar `width` characters long at `max`, in eighths; nothing for 0; at least one eighth for any bytes. */
export function barOf(value: number, max: number, width: number): string {
  if (value <= 0 || max <= 0) return '';
  const eighths = Math.max(1, Math.round((Math.min(value, max) / max) * width * 8));
  return FULL.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
}

export function storageChart(days: DayBytes[], width = 30, size: (n: number) => string = bytesText): string[] {
  const max = Math.max(0, ...days.map((d) => d.bytes ?? 0));
  const cells = days.map((d) => (d.bytes === null ? 'unmetered' : size(d.bytes)));
  const cellWidth = Math.max(0, ...cells.map((c) => c.length));
  return days.map((d, i) => `${d.day}  ${cells[i].padStart(cellWidth)}${d.bytes ? `  ${barOf(d.bytes, max, width)}` : ''}`);
}
