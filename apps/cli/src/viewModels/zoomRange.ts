/**
 * The run page's zoom: a range of step sequences (`?from=<first>&to=<end>`, the end exclusive) that
 * the waterfall and the timeline show alone, the waterfall scaled to it; the rule a range from a URL
 * must meet, and the ranges the zoom links lead to.
 */
import type { MessageKey } from '../i18n/messagesEn.js';
import type { MessageParams } from '../i18n/Translator.js';

/** Steps `from` (inclusive) to `to` (exclusive) by sequence, from 0. @internal */
export interface StepRange {
  readonly from: number;
  readonly to: number;
}

/** A zoom parameter the page refuses: the parameter and the message saying the rule. @internal */
export interface ZoomProblem {
  readonly param: 'from' | 'to';
  readonly message: MessageKey;
  readonly params?: MessageParams;
}

/** What a run page's URL asks: a page (no `to`), a zoomed range, or a range it refuses. @internal */
export type ZoomRequest =
  | { readonly kind: 'page' }
  | { readonly kind: 'range'; readonly range: StepRange }
  | { readonly kind: 'problems'; readonly problems: readonly ZoomProblem[] };

/** A step number in a URL: digits only (no sign, no exponent), at most 15 of them. */
const WHOLE = /^\d{1,15}$/;

/**
 * Reads the zoom of a run with `stepCount` steps from its page's URL. Without `to` it is a page
 * (`from` alone keeps its lenient paging meaning). With `to`, the range must meet the rule: `from`
 * (default 0) and `to` are whole numbers, `0 ≤ from < to ≤ stepCount`, and `to − from ≤ maxSteps`;
 * every parameter that breaks it is named with the rule it breaks.
 *
 * @internal
 */
export function readZoomRange(query: URLSearchParams, stepCount: number, maxSteps: number): ZoomRequest {
  const toText = query.get('to');
  if (toText === null) return { kind: 'page' };
  const fromText = query.get('from') ?? '0';
  const problems: ZoomProblem[] = [];
  const from = WHOLE.test(fromText) ? Number(fromText) : null;
  const to = WHOLE.test(toText) ? Number(toText) : null;
  if (from === null) problems.push({ param: 'from', message: 'runs.zoom.error.whole', params: { value: fromText } });
  if (to === null) problems.push({ param: 'to', message: 'runs.zoom.error.whole', params: { value: toText } });
  if (from !== null && from >= stepCount) {
    problems.push({ param: 'from', message: 'runs.zoom.error.fromBeyond', params: { value: fromText, count: stepCount } });
  }
  if (to !== null && to > stepCount)
    problems.push({ param: 'to', message: 'runs.zoom.error.toBeyond', params: { value: toText, count: stepCount } });
  if (from !== null && to !== null) {
    if (to <= from) problems.push({ param: 'to', message: 'runs.zoom.error.empty', params: { value: toText, from } });
    else if (to - from > maxSteps)
      problems.push({ param: 'to', message: 'runs.zoom.error.tooWide', params: { value: toText, max: maxSteps } });
  }
  if (problems.length > 0 || from === null || to === null) return { kind: 'problems', problems };
  return { kind: 'range', range: { from, to } };
}

/** True when `range` meets the rule {@link readZoomRange} checks. @internal */
export function isZoomRange(range: StepRange, stepCount: number, maxSteps: number): boolean {
  return (
    Number.isSafeInteger(range.from) &&
    Number.isSafeInteger(range.to) &&
    range.from >= 0 &&
    range.from < range.to &&
    range.to <= stepCount &&
    range.to - range.from <= maxSteps
  );
}

/** The middle half of a range (at least one step), or null for a range of one step. @internal */
export function zoomIn(range: StepRange): StepRange | null {
  const size = range.to - range.from;
  if (size <= 1) return null;
  const half = Math.ceil(size / 2);
  const from = range.from + Math.floor((size - half) / 2);
  return { from, to: from + half };
}

/**
 * Twice the range around its middle, kept within the run's steps and `maxSteps` wide at most; null
 * when the range already is as wide as that.
 *
 * @internal
 */
export function zoomOut(range: StepRange, stepCount: number, maxSteps: number): StepRange | null {
  const size = range.to - range.from;
  const wider = Math.min(size * 2, maxSteps, stepCount);
  if (wider <= size) return null;
  return within(range.from - Math.floor((wider - size) / 2), wider, stepCount);
}

/** The range of the same width just before (`-1`) or after (`1`) it, kept within the run's steps; null at the run's edge. @internal */
export function shiftRange(range: StepRange, direction: -1 | 1, stepCount: number): StepRange | null {
  if (direction < 0 ? range.from <= 0 : range.to >= stepCount) return null;
  const size = range.to - range.from;
  return within(range.from + direction * size, size, stepCount);
}

/** A range `size` wide starting at `from`, moved to lie within `[0, stepCount)`. */
function within(from: number, size: number, stepCount: number): StepRange {
  const start = Math.max(0, Math.min(from, stepCount - size));
  return { from: start, to: start + size };
}
