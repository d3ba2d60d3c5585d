// A query's rows as a compact text table (markdown) for an assistant whose
// host shows it only the text of a tool result: the first ROWS_SHOWN rows,
// each cell cut at CELL_CHARS, and a line saying how many were left out. The
// rows travel whole as the tool's structured content; this is their glance,
// kept short so that a 2,000-row answer does not fill the conversation.

export const ROWS_SHOWN = 50;
const CELL_CHARS = 60;

/** One value as a cell: NULL for null, text as it is, anything else as JSON; pipes and line breaks escaped, long values cut. */
export function cell(v: unknown): string {
  const s = v === null || v === undefined ? 'NULL' : typeof v === 'string' ? v : JSON.stringify(v);
  const flat = s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '\\n');
  return flat.length > CELL_CHARS ? `${flat.slice(0, CELL_CHARS - 1)}…` : flat;
}

/** The table of `rows` by `columns` (in their order), at most ROWS_SHOWN rows, with a closing line when some were left out. */
export function renderRows(columns: Array<{ name: string }>, rows: Array<Record<string, unknown>>): string {
  if (rows.length === 0) return '(no rows)';
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const lines = [line(columns.map((c) => cell(c.name))), line(columns.map(() => '---'))];
  for (const r of rows.slice(0, ROWS_SHOWN)) lines.push(line(columns.map((c) => cell(r[c.name]))));
  if (rows.length > ROWS_SHOWN) lines.push(`(the first ${ROWS_SHOWN} of ${rows.length} rows; every row is in the structured content)`);
  return lines.join('\n');
}
