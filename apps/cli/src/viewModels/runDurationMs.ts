import type { StoredRun } from '@runledger/trace';

/** The time from a run's start to its finish (or to now while it runs), or null. @internal */
export function runDurationMs(run: StoredRun, now: number): number | null {
  const start = run.startedAt ?? run.createdAt;
  const end = run.finishedAt ?? (run.status === 'running' ? now : null);
  return end === null ? null : Math.max(0, end - start);
}
