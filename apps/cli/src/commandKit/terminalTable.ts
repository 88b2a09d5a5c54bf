import { terminalText } from './terminalText.js';

/**
 * The widest a table cell is shown, in characters: a longer one is cut to its first 79 and `…`.
 * One stored value (a 1 MB configuration name) would otherwise widen every row of its column;
 * `--json` prints every value whole.
 *
 * @internal
 */
export const TABLE_CELL_MAX_WIDTH = 80;

/**
 * The widest a cell of the last column is shown: that column is never padded, so a long cell
 * widens only its own line, and it holds the longest text (a step's details, each value of them
 * already bounded), kept whole up to here.
 *
 * @internal
 */
export const TABLE_LAST_CELL_MAX_WIDTH = 400;

/** Width of text as a terminal shows it (code points; good enough for the app's own text). */
function width(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** The cell as shown: whole within `max` characters, else its first code points and `…` (a surrogate pair is never cut). */
function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  let kept = 0;
  let end = 0;
  for (const char of text) {
    if (kept === max - 1) return `${text.slice(0, end)}${end + char.length === text.length ? char : '…'}`;
    kept++;
    end += char.length;
  }
  return text;
}

/**
 * Lays out rows as a plain-text table with a header and a rule; columns listed in `right` are
 * right-aligned. Every cell passes through {@link terminalText}: control characters of stored
 * text are shown as escapes, never sent to the terminal; then a cell wider than
 * {@link TABLE_CELL_MAX_WIDTH} ({@link TABLE_LAST_CELL_MAX_WIDTH} in the last column) is cut, so
 * that no line is wider than the caps and the gaps. Columns listed in `options.whole` are never
 * cut: local text the reader must copy as it is (a spool file's path), never a stored value.
 *
 * @internal
 */
export function terminalTable(
  header: readonly string[],
  unsafeRows: readonly (readonly string[])[],
  right: readonly number[] = [],
  options: { readonly whole?: readonly number[] } = {},
): string {
  const last = header.length - 1;
  const max = (i: number) =>
    options.whole?.includes(i) === true ? Infinity : i === last ? TABLE_LAST_CELL_MAX_WIDTH : TABLE_CELL_MAX_WIDTH;
  const rows = unsafeRows.map((row) => row.map((cell, i) => capped(terminalText(cell), max(i))));
  const widths = header.map((cell, i) => Math.max(width(cell), ...rows.map((row) => width(row[i] ?? ''))));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => {
        const pad = ' '.repeat(Math.max(0, (widths[i] ?? 0) - width(cell)));
        return right.includes(i) ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...rows.map(line)].join('\n') + '\n';
}
