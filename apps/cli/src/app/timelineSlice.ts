import {
  buildRunTimeline,
  callIdOfStoredStep,
  RunCallState,
  type RunStore,
  type RunTimelineEntry,
  type StoredRun,
  type StoredStep,
} from '@runledger/trace';
import type { TimelineSlice } from '../views/runView.js';
import type { OpenCallTracker } from './OpenCallTracker.js';
import { stepContents } from '../viewModels/stepContent.js';

/** Steps around the page that only pair call starts with their ends (never shown). @internal */
export interface TimelineContext {
  /** Steps before the page (read for a running run, to find every call on the wire). */
  readonly before?: readonly StoredStep[];
  /** Steps after the page (read when a call started on the page may end on a later one). */
  readonly after?: readonly StoredStep[];
  /**
   * For a running run, instead of `before` and `after`: the start steps of every call on the wire,
   * as an {@link OpenCallTracker} found them reading up to `readTo` (past the page): a call started
   * on the page and not among them has ended.
   */
  readonly openCalls?: { readonly starts: readonly StoredStep[]; readonly readTo: number };
}

/**
 * Builds the slice of a run's timeline that one page shows, with the trace package's {@link buildRunTimeline}: the
 * page's steps, and the run's lifecycle events (started, cancel requested, the end) on the page
 * whose time span they fall in; and, for a running run, every call on the wire.
 *
 * @remarks
 * `read` holds the page's steps and, when there are more, one step beyond (`pageSize + 1`
 * read), which tells where the page ends: pages partition time as [first step of the page,
 * first step of the next page), the first page reaching back and the last reaching forward
 * without bound. A call started on the page and ended by a step in `context.after` is shown by
 * that step on its own page, not as on the wire here.
 *
 * @internal
 */
export function timelineSlice(
  run: StoredRun,
  read: readonly StoredStep[],
  from: number,
  pageSize = Number.POSITIVE_INFINITY,
  context: TimelineContext = {},
): TimelineSlice {
  const steps = read.length > pageSize ? read.slice(0, pageSize) : read;
  const next = read.length > pageSize ? read[pageSize] : undefined;
  const pageStart = from === 0 ? Number.NEGATIVE_INFINITY : (steps[0]?.createdAt ?? Number.POSITIVE_INFINITY);
  const pageEnd = next === undefined ? Number.POSITIVE_INFINITY : next.createdAt;
  const onPage = (entry: RunTimelineEntry) => !entry.isLifecycle || (entry.time >= pageStart && entry.time < pageEnd);
  const later = [...read.slice(steps.length), ...(context.after ?? [])];
  const open = run.status === 'running' ? context.openCalls : undefined;
  const endedCallIds = open !== undefined ? endedSince(steps, open.starts) : later.length === 0 ? undefined : endedCalls(later);
  const entries = buildRunTimeline(run, steps, endedCallIds === undefined ? {} : { endedCallIds }).filter(onPage);
  let wire: RunTimelineEntry[] = [];
  if (open !== undefined) {
    wire = buildRunTimeline(run, open.starts).filter((entry) => entry.callState === RunCallState.ON_THE_WIRE);
  } else if (run.status === 'running') {
    const all = [...(context.before ?? []), ...steps, ...later];
    wire = (all.length === steps.length ? entries : buildRunTimeline(run, all)).filter(
      (entry) => entry.callState === RunCallState.ON_THE_WIRE,
    );
  }
  return { from, entries, stepsShown: steps.length, wire, contents: stepContents(steps) };
}

/** Steps read at a time after a page while looking for the ends of the calls started on it (the chunk grows 4× each time). @internal */
export const AFTER_PAGE_CHUNK = 1_000;
const AFTER_PAGE_CHUNK_MAX = 64_000;

/**
 * Reads the slice of a run's timeline that starts at step `from`, with what it needs to pair call
 * starts and ends: for a finished run, the steps after the page up to the last end of a call started
 * on it (in growing chunks, so a page of a 100 000-step run reads a few hundred steps, not the rest of
 * the run); for a running run, the rest of the run and the steps before the page (to list every
 * call on the wire). With a `tracker`, a running run's calls on the wire come from it instead: a
 * view of a running run then reads the page and the steps appended since the last view.
 *
 * @internal
 */
export async function readTimelineSlice(
  store: RunStore,
  run: StoredRun,
  from: number,
  pageSize: number,
  tracker?: OpenCallTracker,
): Promise<TimelineSlice> {
  const read = await store.readSteps(run.id, { fromSequence: from, limit: pageSize + 1 });
  const running = run.status === 'running';
  if (!running) tracker?.forget(run.id);
  if (running && tracker !== undefined) {
    // read after the page: the tracker has then read past every step on it
    return timelineSlice(run, read, from, pageSize, { openCalls: await tracker.openCalls(store, run) });
  }
  let after: readonly StoredStep[] = [];
  if (read.length > pageSize) {
    after = running
      ? await store.readSteps(run.id, { fromSequence: from + pageSize + 1 })
      : await readUntilEnded(store, run.id, from + pageSize + 1, openCalls(read, pageSize));
  }
  const before = running && from > 0 ? await store.readSteps(run.id, { fromSequence: 0, limit: from }) : [];
  return timelineSlice(run, read, from, pageSize, { before, after });
}

/** The ids of the calls started on the page (the first `pageSize` of `read`) that no step of `read` ends. */
function openCalls(read: readonly StoredStep[], pageSize: number): Set<string> {
  const open = new Set<string>();
  for (const step of read.slice(0, pageSize)) {
    const id = step.kind === 'tool_start' ? callIdOfStoredStep(step) : null;
    if (id !== null) open.add(id);
  }
  for (const id of endedCalls(read)) open.delete(id);
  return open;
}

/** The steps from `fromSequence` on, read in growing chunks until every call in `open` has ended or the run's steps end. */
async function readUntilEnded(store: RunStore, runId: string, fromSequence: number, open: Set<string>): Promise<StoredStep[]> {
  const after: StoredStep[] = [];
  let next = fromSequence;
  let limit = AFTER_PAGE_CHUNK;
  while (open.size > 0) {
    const chunk = await store.readSteps(runId, { fromSequence: next, limit });
    for (const step of chunk) after.push(step);
    for (const id of endedCalls(chunk)) open.delete(id);
    if (chunk.length < limit) break;
    next += chunk.length;
    limit = Math.min(limit * 4, AFTER_PAGE_CHUNK_MAX);
  }
  return after;
}

/** The call ids that `tool` steps ended. */
function endedCalls(steps: readonly StoredStep[]): Set<string> {
  const ids = new Set<string>();
  for (const step of steps) {
    // an unreadable row ends nothing
    const id = step.kind === 'tool' ? callIdOfStoredStep(step) : null;
    if (id !== null) ids.add(id);
  }
  return ids;
}

/** The calls started on the page that are no longer open: every start on the page not among the open calls' starts. */
function endedSince(steps: readonly StoredStep[], openStarts: readonly StoredStep[]): Set<string> {
  const open = new Set<string>();
  for (const start of openStarts) {
    const id = callIdOfStoredStep(start);
    if (id !== null) open.add(id);
  }
  const ended = new Set<string>();
  for (const step of steps) {
    const id = step.kind === 'tool_start' ? callIdOfStoredStep(step) : null;
    if (id !== null && !open.has(id)) ended.add(id);
  }
  return ended;
}
