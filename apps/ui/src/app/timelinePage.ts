import { type RunTimelineEntry, RunTimelineFactory, type StoredRun, type StoredStep } from '@runledger/trace';
import type { TimelinePage } from '../pages/runPage.js';

/**
 * Builds one page of a run's timeline with the trace package's {@link RunTimelineFactory}: the
 * page's steps, and the run's lifecycle events (started, cancel requested, the end) on the page
 * whose time span they fall in.
 *
 * @remarks
 * `read` holds the page's steps and, when there are more, one step beyond (`pageSize + 1`
 * read), which tells where the page ends: pages partition time as [first step of the page,
 * first step of the next page), the first page reaching back and the last reaching forward
 * without bound.
 *
 * @internal
 */
export function timelinePage(run: StoredRun, read: readonly StoredStep[], from: number, pageSize = Number.POSITIVE_INFINITY): TimelinePage {
  const steps = read.length > pageSize ? read.slice(0, pageSize) : read;
  const next = read.length > pageSize ? read[pageSize] : undefined;
  const pageStart = from === 0 ? Number.NEGATIVE_INFINITY : (steps[0]?.createdAt ?? Number.POSITIVE_INFINITY);
  const pageEnd = next === undefined ? Number.POSITIVE_INFINITY : next.createdAt;
  const onPage = (entry: RunTimelineEntry) => !entry.isLifecycle || (entry.time >= pageStart && entry.time < pageEnd);
  const entries = RunTimelineFactory.build(run, steps).filter(onPage);
  return { from, entries, stepsShown: steps.length };
}
