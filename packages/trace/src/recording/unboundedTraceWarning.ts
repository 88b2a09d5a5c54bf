/** The code of the warning {@link warnUnboundedTrace} emits. */
export const UNBOUNDED_TRACE_WARNING = 'RUNLEDGER_UNBOUNDED_TRACE';

/** The step count at which a run that did not choose `keepSteps` is warned about its memory. */
export const UNBOUNDED_WARN_AT = 100_000;

let warned = false;
let warnAt = UNBOUNDED_WARN_AT;

/** The step count at which a run that did not choose `keepSteps` is warned (UNBOUNDED_WARN_AT, unless a test lowered it). */
export function unboundedWarnAt(): number {
  return warnAt;
}

/**
 * Warns, once per process, that a run recorded into a store keeps every step in memory because
 * it did not choose `StartRunOptions.keepSteps`.
 */
export function warnUnboundedTrace(count: number): void {
  if (warned) return;
  warned = true;
  try {
    process.emitWarning(
      `a run recorded into a store has kept ${count.toLocaleString('en')} steps in memory (run.trace.steps): set StartRunOptions.keepSteps ` +
        `(e.g. 1000) to keep memory flat and read the steps back with run.readSteps(), or keepSteps: Infinity to keep them all. ` +
        `The next major release is planned to default to a window for runs with a store (docs/deprecations.md).`,
      { code: UNBOUNDED_TRACE_WARNING },
    );
  } catch {
    // whatever goes wrong with a warning must not reach the record hook (and cost the run a step)
  }
}

/**
 * Lets the next unbounded run warn again, at `at` steps (tests only: the rule is the same at any
 * count, and a test need not record 100 000 steps to show it).
 */
export function resetUnboundedTraceWarning(at: number = UNBOUNDED_WARN_AT): void {
  warned = false;
  warnAt = at;
}
