/** Where a bar's label is drawn: inside the bar, or beside it on its lane (right or left). @internal */
export type BarLabelPlace = 'inside' | 'right' | 'left';

/** A bar's label as drawn at one chart width. @internal */
export interface BarLabel {
  readonly text: string;
  readonly place: BarLabelPlace;
}

/** A bar as the labels see it: its left edge and width in percent of the axis, and its lane. @internal */
export interface LabelledBox {
  readonly x: number;
  readonly width: number;
  readonly lane: number;
}

/**
 * The width a label character takes at most, in px: the label font is 11 px monospace (0.6 em a
 * character), with headroom for a wider fallback font.
 *
 * @internal
 */
export const LABEL_CHAR_PX = 7;
/** The room a label needs besides its text, in px: 4 px from the bar's edge (inside or beside) and 4 px clear after it. @internal */
export const LABEL_PAD_PX = 8;

/** The room a text takes on a chart `chartPx` wide, in percent of the axis. @internal */
export function labelPercent(text: string, chartPx: number): number {
  return ((Array.from(text).length * LABEL_CHAR_PX + LABEL_PAD_PX) / chartPx) * 100;
}

/**
 * Places each bar's label on a chart `chartPx` wide: the first of its texts (longest first) that
 * fits inside the bar, else the first that fits beside it, right of it before the next bar on its
 * lane or left of it after the last bar or label there, else none (the bar's accessible name and
 * tooltip still say it). No label overlaps a bar or another label on its lane, nor leaves the axis.
 *
 * @remarks
 * One sweep of each lane from left to right (O(n log n) with the sort): a label put right of a bar
 * takes room the next bar's left label can no longer use.
 *
 * @internal
 */
export function placeBarLabels(boxes: readonly LabelledBox[], texts: readonly (readonly string[])[], chartPx: number): (BarLabel | null)[] {
  const labels = new Array<BarLabel | null>(boxes.length).fill(null);
  const order = boxes.map((_, i) => i);
  order.sort((a, b) => boxes[a]!.lane - boxes[b]!.lane || boxes[a]!.x - boxes[b]!.x || a - b);
  let lane = -1;
  // the right end of what the lane holds so far (bars and their labels), in percent
  let taken = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const box = boxes[i]!;
    if (box.lane !== lane) {
      lane = box.lane;
      taken = 0;
    }
    const nextIndex = order[k + 1];
    const next = nextIndex !== undefined && boxes[nextIndex]!.lane === lane ? boxes[nextIndex]!.x : 100;
    const end = box.x + box.width;
    const candidates = texts[i] ?? [];
    const room = (place: BarLabelPlace, need: number): boolean =>
      place === 'inside' ? need <= box.width : place === 'right' ? end + need <= next : box.x - need >= taken;
    let label: BarLabel | null = null;
    for (const place of ['inside', 'right', 'left'] as const) {
      const text = candidates.find((candidate) => candidate !== '' && room(place, labelPercent(candidate, chartPx)));
      if (text !== undefined) {
        label = { text, place };
        break;
      }
    }
    labels[i] = label;
    taken = Math.max(taken, label?.place === 'right' ? end + labelPercent(label.text, chartPx) : end);
  }
  return labels;
}
