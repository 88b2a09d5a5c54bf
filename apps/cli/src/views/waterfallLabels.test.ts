import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignLanes } from './waterfallLayout.js';
import { type BarLabel, labelPercent, type LabelledBox, placeBarLabels } from './waterfallLabels.js';

const EPSILON = 1e-9;

/** Where a label lies on its lane, in percent of the axis. */
function extent(box: LabelledBox, label: BarLabel, chartPx: number): { from: number; to: number } {
  const need = labelPercent(label.text, chartPx);
  if (label.place === 'inside') return { from: box.x, to: box.x + need };
  if (label.place === 'right') return { from: box.x + box.width, to: box.x + box.width + need };
  return { from: box.x - need, to: box.x };
}

describe('placeBarLabels', () => {
  it('puts the longest text that fits inside a wide bar, a shorter one when only it fits, else beside the bar, else nothing', () => {
    const texts = [['mcp_docs_search on docs', 'mcp_docs_search']];
    // 880 px: 23 characters need (23 × 7 + 8) / 880 ≈ 19.2 %, 15 need ≈ 12.8 %
    expect(placeBarLabels([{ x: 0, width: 30, lane: 0 }], texts, 880)).toEqual([{ text: 'mcp_docs_search on docs', place: 'inside' }]);
    expect(placeBarLabels([{ x: 0, width: 15, lane: 0 }], texts, 880)).toEqual([{ text: 'mcp_docs_search', place: 'inside' }]);
    expect(placeBarLabels([{ x: 0, width: 1, lane: 0 }], texts, 880)).toEqual([{ text: 'mcp_docs_search on docs', place: 'right' }]);
    expect(placeBarLabels([{ x: 95, width: 5, lane: 0 }], texts, 880)).toEqual([{ text: 'mcp_docs_search on docs', place: 'left' }]);
    // a bar crowded on both sides on its lane keeps its name for assistive tech only
    const crowded = [
      { x: 0, width: 40, lane: 0 },
      { x: 40, width: 1, lane: 0 },
      { x: 41.5, width: 58.5, lane: 0 },
    ];
    expect(placeBarLabels(crowded, [[], texts[0]!, []], 880)[1]).toBeNull();
  });

  it('never lets a label overlap a bar or another label on its lane, or leave the axis', () => {
    const bars = fc.array(
      fc.record({ from: fc.double({ min: 0, max: 100, noNaN: true }), width: fc.double({ min: 0.25, max: 100, noNaN: true }) }),
      { maxLength: 40 },
    );
    const name = fc.string({ minLength: 0, maxLength: 40 });
    fc.assert(
      fc.property(
        bars,
        fc.array(fc.array(name, { maxLength: 3 }), { maxLength: 40 }),
        fc.integer({ min: 200, max: 2000 }),
        (raw, texts, chartPx) => {
          const spans = raw.map((bar) => {
            const width = Math.min(bar.width, 100);
            return { x: Math.min(bar.from, 100 - width), width };
          });
          const { lanes } = assignLanes(spans.map((span) => ({ from: span.x, to: span.x + span.width })));
          const boxes = spans.map((span, i) => ({ ...span, lane: lanes[i]! }));
          const labels = placeBarLabels(boxes, texts, chartPx);
          expect(labels).toHaveLength(boxes.length);
          const taken = boxes.map((box) => ({ lane: box.lane, from: box.x, to: box.x + box.width }));
          labels.forEach((label, i) => {
            if (label === null) return;
            const box = boxes[i]!;
            expect(texts[i]).toContain(label.text);
            const at = extent(box, label, chartPx);
            expect(at.from).toBeGreaterThanOrEqual(-EPSILON);
            expect(at.to).toBeLessThanOrEqual(100 + EPSILON);
            if (label.place === 'inside') {
              expect(at.to).toBeLessThanOrEqual(box.x + box.width + EPSILON);
            } else {
              for (const other of taken) {
                if (other.lane === box.lane) expect(at.to <= other.from + EPSILON || at.from >= other.to - EPSILON).toBe(true);
              }
              taken.push({ lane: box.lane, ...at });
            }
          });
        },
      ),
    );
  });
});
