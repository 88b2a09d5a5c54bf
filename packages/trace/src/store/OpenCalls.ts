// The calls on the wire of a running run, as a store keeps them: the optional RunStore read, and
// the one rule of what a step opens and ends that every store (and the app's tracker) folds by.
import type { StoredStep } from '@runledger/trace';
import type { RunStore } from './RunStore.js';

/**
 * The calls on the wire of a running run, read in one snapshot.
 *
 * @public
 */
export interface OpenCallsRead {
  /** The `tool_start` steps of the run's calls that no step has ended yet, in sequence order. */
  readonly starts: readonly StoredStep[];
  /** The run's step count when they were read: every step before this sequence was taken into account. */
  readonly readTo: number;
  /**
   * The ids of calls whose end came before any start of theirs (rare: a writer that appends out
   * of order), which a start closes rather than opens: what a reader needs, with `starts`, to go
   * on folding the steps from `readTo` with an {@link OpenCallSet}. In no particular order.
   */
  readonly endedFirst: readonly string[];
}

/**
 * A {@link RunStore} that keeps the calls on the wire of its runs, so that a running run's open
 * calls are read without reading the run: every store of runledger is one.
 *
 * @remarks
 * `readOpenCalls` is optional on {@link RunStore} so that a store written before it still
 * compiles; {@link canReadOpenCalls} tells whether a store has it. Readers without it fold the
 * run's steps with {@link OpenCallSet}, which gives the same answer.
 *
 * @public
 */
export interface OpenCallsRunStore extends RunStore {
  /**
   * The calls on the wire of a run: what {@link OpenCallSet} holds after taking every stored step
   * of the run in sequence order (its `values()` and `endedFirst()`), and the step count it took.
   * Null when there is no such run.
   * Costs the number of open calls, not of steps.
   *
   * @throws RunStoreError (`invalid_input`) when `runId` is not a string.
   */
  readOpenCalls(runId: string): Promise<OpenCallsRead | null>;
}

/**
 * Tells whether a store can read a run's open calls (has `readOpenCalls`).
 *
 * @public
 */
export function canReadOpenCalls(store: RunStore): store is OpenCallsRunStore {
  return typeof (store as Partial<OpenCallsRunStore>).readOpenCalls === 'function';
}

/**
 * The call a step opens (`tool_start`) or ends (`tool`): its payload's `toolCallId`, or null
 * (another kind, no id, or not a string). For a payload as an append gives it (an object).
 *
 * @public
 */
export function callIdOfPayload(kind: string, payload: unknown): string | null {
  if (kind !== 'tool_start' && kind !== 'tool') return null;
  if (typeof payload !== 'object' || payload === null) return null;
  const id = (payload as Record<string, unknown>)['toolCallId'];
  return typeof id === 'string' ? id : null;
}

/**
 * The call a stored step opens or ends, as {@link callIdOfPayload} says of its payload text; null
 * for an unreadable payload too (it opens and ends nothing).
 *
 * @public
 */
export function callIdOfStoredStep(step: Pick<StoredStep, 'kind' | 'payload'>): string | null {
  if ((step.kind !== 'tool_start' && step.kind !== 'tool') || !step.payload.includes('"toolCallId"')) return null;
  try {
    return callIdOfPayload(step.kind, JSON.parse(step.payload));
  } catch {
    return null;
  }
}

/**
 * The open calls of a run as its steps come, in sequence order: a `tool_start` opens its call, a
 * `tool` step ends it. A call whose end came first is never open (its start, when it comes,
 * closes it: the run's whole timeline hides every start of an ended call); a start of a call
 * already open replaces the one held (call ids are unique within a run: the recorder makes them
 * so). A start without a call id opens nothing. Holds only the open calls and the ends still
 * waiting for their start.
 *
 * @public
 */
export class OpenCallSet<T> {
  readonly #open = new Map<string, { readonly sequence: number; readonly value: T }>();
  readonly #endedFirst = new Set<string>();

  /** A `tool_start` of call `id` at `sequence`, held as `value`. */
  start(id: string, sequence: number, value: T): void {
    if (this.#endedFirst.delete(id)) return;
    this.#open.delete(id);
    this.#open.set(id, { sequence, value });
  }

  /** A `tool` step of call `id`. */
  end(id: string): void {
    if (!this.#open.delete(id)) this.#endedFirst.add(id);
  }

  /** Takes a stored step: a start or an end of a call, or nothing. */
  add(step: StoredStep, value: T): void {
    const id = callIdOfStoredStep(step);
    if (id === null) return;
    if (step.kind === 'tool_start') this.start(id, step.sequence, value);
    else this.end(id);
  }

  /** The values of the open calls, in the sequence order of their starts. */
  values(): T[] {
    return [...this.#open.values()].sort((a, b) => a.sequence - b.sequence).map((open) => open.value);
  }

  /** The ids of the calls whose end came before their start (and no start yet). */
  endedFirst(): string[] {
    return [...this.#endedFirst];
  }

  /** How many calls are open. */
  get size(): number {
    return this.#open.size;
  }
}
