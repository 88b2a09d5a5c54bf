import type { RunStore, StoredRun } from '@runledger/trace';

/**
 * Cancels a run as the app's Cancel button does: the cancel is requested whatever the run's status
 * (on a run that has ended meanwhile, the store keeps it as a late cancel, changing nothing), and
 * the process running it notices and stops the run. The app's cancel action and
 * `runledger runs cancel` both go through here.
 *
 * @returns the run after the request, or null when there is no run with that id.
 * @internal
 */
export async function cancelRun(store: RunStore, runId: string): Promise<StoredRun | null> {
  const run = await store.getRun(runId);
  if (run === null) return null;
  return store.requestCancel(runId);
}
