/**
 * The short text table of a tool result: a Markdown pipe table (readable raw and rendered) of a few columns
 * and at most 20 rows, with a line saying how many rows were left out. The full records travel in the
 * result's structured content; the table is for reading, so long texts are cut and numbers rounded.
 */
export type CellFormat = 'text' | 'int' | 'number' | 'money' | 'ratio' | 'percent';

export type Cell = string | number | null | undefined;

export interface Column<Row> {
  header: string;
  value: (row: Row) => Cell;
  /** Default `text` (numbers: `number`). */
  format?: CellFormat;
}

export interface TableOptions {
  /** Rows shown at most, default 20. */
  maxRows?: number;
  /** Rows the whole result has (over all pages), when more than `rows`. */
  total?: number;
  /** Longest cell, default 48 characters. */
  maxCellWidth?: number;
}

export const MAX_TABLE_ROWS = 20;

const groupThousands = (s: string): string => s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** Formats one value for the table: money with 2 decimals and thousands separators, counts up to 2 decimals. */
export function formatCell(value: Cell, format: CellFormat = typeof value === 'number' ? 'number' : 'text'): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value;
  if (!Number.isFinite(value)) return String(value);
  switch (format) {
    case 'int':
      return groupThousands(Math.round(value).toString());
    case 'money': {
      const [int, frac] = Math.abs(value).toFixed(2).split('.');
      return `${value < 0 ? '-' : ''}${groupThousands(int!)}.${frac!}`;
    }
    case 'ratio':
      return value.toFixed(2);
    case 'percent':
      return `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}%`;
    case 'number':
    case 'text': {
      const [int, frac] = String(Math.round(Math.abs(value) * 100) / 100).split('.');
      return `${value < 0 && (int !== '0' || frac) ? '-' : ''}${groupThousands(int!)}${frac ? `.${frac}` : ''}`;
    }
  }
}

function cut(text: string, width: number): string {
  const flat = text.replace(/[\r\n\t|]+/g, ' ');
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
}

export function formatTable<Row>(
  rows: readonly Row[],
  columns: readonly Column<Row>[],
  opts: TableOptions = {},
): string {
  const maxRows = opts.maxRows ?? MAX_TABLE_ROWS;
  const width = opts.maxCellWidth ?? 48;
  const shown = rows.slice(0, maxRows);
  const cells = shown.map((row) => columns.map((c) => cut(formatCell(c.value(row), c.format), width)));
  const headers = columns.map((c) => cut(c.header, width));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length), 3));
  const numeric = columns.map((c) => c.format !== undefined && c.format !== 'text');
  const line = (values: string[]): string =>
    `| ${values.map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (numeric[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  const lines = [line(headers), rule, ...cells.map(line)];
  const total = Math.max(opts.total ?? rows.length, rows.length);
  if (shown.length === 0) lines.push('(no rows)');
  else if (total > shown.length) lines.push(`(${shown.length} of ${total} rows shown)`);
  return lines.join('\n');
}
