/** A signal that follows others, and the call that stops following them. */
export interface FollowedSignals {
  /** Aborted, with the same reason, as soon as one of the followed signals is. */
  readonly signal: AbortSignal;
  /** Removes the listeners added to the followed signals; call it once the call ended. */
  release(): void;
}

/**
 * A signal aborted when the first of `signals` is, with that signal's own reason (so a rejection
 * can be compared to it by identity); `undefined` entries and repeats are skipped.
 *
 * @remarks
 * One followed signal is returned as it is. Otherwise one `abort` listener is added to each
 * followed signal and `release()` removes them all — unlike `AbortSignal.any`, whose dependants
 * stay registered on a long-lived source (the run's signal) until they are garbage-collected.
 */
export function followSignals(signals: readonly (AbortSignal | undefined)[]): FollowedSignals {
  const followed = [...new Set(signals.filter((s): s is AbortSignal => s !== undefined))];
  if (followed.length === 1) return { signal: followed[0]!, release: () => undefined };
  const controller = new AbortController();
  const aborted = followed.find((s) => s.aborted);
  if (aborted !== undefined) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const listeners = followed.map((source) => {
    const onAbort = (): void => {
      release();
      controller.abort(source.reason);
    };
    source.addEventListener('abort', onAbort, { once: true });
    return [source, onAbort] as const;
  });
  const release = (): void => {
    for (const [source, onAbort] of listeners) source.removeEventListener('abort', onAbort);
  };
  return { signal: controller.signal, release };
}
