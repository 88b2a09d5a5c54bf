import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TABLE_CELL_MAX_WIDTH, TABLE_LAST_CELL_MAX_WIDTH, terminalTable } from './terminalTable.js';
import { terminalText } from './terminalText.js';

/** Width as the table counts it: code points. */
const width = (text: string): number => [...text].length;

/** Cell text of any length around the caps: emoji (surrogate pairs), controls, CJK, plain letters. */
const cell = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'é', '😀', '漢', '\u001b', '\\', ' '), maxLength: TABLE_CELL_MAX_WIDTH + 20 }),
  fc.string({ unit: fc.constantFrom('b', '😀', ' '), minLength: TABLE_LAST_CELL_MAX_WIDTH - 5, maxLength: TABLE_LAST_CELL_MAX_WIDTH + 5 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.integer({ min: 0, max: 5000 }).map((n) => 'x'.repeat(n)),
);

describe('terminalTable', () => {
  it(`caps a cell at ${TABLE_CELL_MAX_WIDTH} characters (the last column's at ${TABLE_LAST_CELL_MAX_WIDTH}) with …, so no line is wider than the caps and the gaps`, () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.array(cell, { minLength: 4, maxLength: 4 }), { maxLength: 6 }),
        (columns, rows) => {
          const header = ['A', 'B', 'C', 'D'].slice(0, columns);
          const body = rows.map((row) => row.slice(0, columns));
          const lines = terminalTable(header, body).split('\n');
          expect(lines.at(-1)).toBe('');
          for (const line of lines) {
            expect(width(line)).toBeLessThanOrEqual((columns - 1) * (TABLE_CELL_MAX_WIDTH + 2) + TABLE_LAST_CELL_MAX_WIDTH);
            // a surrogate pair is never cut: every line is well-formed text
            expect(Buffer.from(line, 'utf8').toString('utf8')).toBe(line);
          }
          for (const [i, row] of body.entries()) {
            const shown = lines[i + 2]!;
            for (const [column, text] of row.entries()) {
              // text with controls or backslashes is shown escaped (terminalText's own tests)
              if (terminalText(text) !== text) continue;
              const cap = column === columns - 1 ? TABLE_LAST_CELL_MAX_WIDTH : TABLE_CELL_MAX_WIDTH;
              // a cell within its cap is shown whole; a longer one by its start and an ellipsis
              if (width(text) <= cap) expect(shown).toContain(text.trimEnd());
              else expect(shown).toContain(`${[...text].slice(0, cap - 1).join('')}…`);
            }
          }
        },
      ),
    );
  });

  it('columns listed as whole are never cut (a spool file path)', () => {
    const path = `/tmp/${'p'.repeat(200)}.jsonl`;
    expect(terminalTable(['FILE', 'N'], [[path, '1']], [1], { whole: [0] })).toContain(`${path}  1`);
  });

  it('a 1 MB cell prints as one capped cell, not a 1 MB-wide table', () => {
    const out = terminalTable(
      ['CONFIGURATION', 'N'],
      [
        ['c'.repeat(1_000_000), '1'],
        ['short', '22'],
      ],
      [1],
    );
    expect(out.length).toBeLessThan(4 * (TABLE_CELL_MAX_WIDTH + 10));
    expect(out.split('\n')[3]).toBe(`short${' '.repeat(TABLE_CELL_MAX_WIDTH - 5)}  22`);
  });
});
