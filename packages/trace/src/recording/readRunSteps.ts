import type { RunStore, StoredStep } from '../store/RunStore.js';
import type { RunTrace } from './RunTrace.js';

/**
 * Options of {@link ActiveRun.readSteps}.
 *
 * @public
 */
export interface ReadRunStepsOptions {
  /** The first sequence to read; default 0. */
  readonly fromSequence?: number;
  /** How many steps each `store.readSteps` call reads; default 1 000. */
  readonly pageSize?: number;
}

const DEFAULT_PAGE_SIZE = 1_000;

/** The largest sequence a store takes (a 32-bit integer, as `checkStepQuery` has it). */
const MAX_SEQUENCE = 2 ** 31 - 1;

/**
 * Checks the options of `ActiveRun.readSteps` and fills in the defaults.
 *
 * @throws TypeError when an option is not a number; RangeError when `fromSequence` is not a
 * non-negative integer or `pageSize` not a positive one.
 */
export function checkReadRunSteps(options: ReadRunStepsOptions): { readonly fromSequence: number; readonly pageSize: number } {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError(`ActiveRun.readSteps options must be an object, got ${options === null ? 'null' : typeof options}`);
  }
  const fromSequence = integer(options.fromSequence ?? 0, 'fromSequence', 0, MAX_SEQUENCE);
  const pageSize = integer(options.pageSize ?? DEFAULT_PAGE_SIZE, 'pageSize', 1, MAX_SEQUENCE);
  return { fromSequence, pageSize };
}

function integer(value: unknown, key: string, min: number, max: number): number {
  const rule = min === 0 ? 'a non-negative integer' : 'a positive integer';
  if (typeof value !== 'number') throw new TypeError(`ReadRunStepsOptions.${key} must be ${rule}, got ${typeof value}`);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`ReadRunStepsOptions.${key} must be ${rule} up to ${max}, got ${String(value)}`);
  }
  return value;
}

/**
 * The steps of a run as its store holds them, page by page: the trace's hooks settle first, so
 * every step recorded before the call is stored (or spooled, or lost) by the first page.
 */
export async function* readRunSteps(
  store: RunStore,
  runId: string,
  trace: RunTrace,
  query: { readonly fromSequence: number; readonly pageSize: number },
): AsyncGenerator<StoredStep, void, undefined> {
  await trace.flush();
  let from = query.fromSequence;
  for (;;) {
    const page = await store.readSteps(runId, { fromSequence: from, limit: query.pageSize });
    yield* page;
    if (page.length < query.pageSize) return;
    from += page.length;
  }
}
