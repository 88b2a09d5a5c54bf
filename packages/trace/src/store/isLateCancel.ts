import type { StoredRun } from './RunStore.js';

/**
 * Tells whether a run's cancel was requested only after it had finished (so it did not change
 * how the run ended).
 *
 * @remarks
 * Stores end a run `cancelled` when its cancel was requested while it was running, so a
 * finished run that is not `cancelled` but has a `cancelRequestedAt` got its cancel too late.
 *
 * @public
 */
export function isLateCancel(run: Pick<StoredRun, 'status' | 'cancelRequestedAt'>): boolean {
  return run.cancelRequestedAt !== null && run.status !== 'running' && run.status !== 'cancelled';
}
