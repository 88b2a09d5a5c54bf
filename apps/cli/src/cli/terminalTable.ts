import { terminalText } from './terminalText.js';

/** Width of text as a terminal shows it (code points; good enough for the app's own text). */
function width(text: string): number {
  return [...text].length;
}

/**
 * Lays out rows as a plain-text table with a header and a rule; columns listed in `right` are
 * right-aligned. Every cell passes through {@link terminalText}: control characters of stored
 * text are shown as escapes, never sent to the terminal.
 *
 * @internal
 */
export function terminalTable(
  header: readonly string[],
  unsafeRows: readonly (readonly string[])[],
  right: readonly number[] = [],
): string {
  const rows = unsafeRows.map((row) => row.map(terminalText));
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
