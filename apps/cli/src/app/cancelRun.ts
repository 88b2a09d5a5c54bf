import { type CancelRequestInput, RunStoreError, RunStoreErrorCode, type RunStore, type StoredRun } from '@runledger/trace';

/**
 * What a cancel of a run came to: no such run; refused, the run having ended already (nothing
 * written); or requested — `run` as the store has it after the request (a late cancel, see
 * `isLateCancel`, when the run ended between the read and the request).
 *
 * @internal
 */
export type CancelRunResult =
  { readonly kind: 'none' } | { readonly kind: 'ended'; readonly run: StoredRun } | { readonly kind: 'requested'; readonly run: StoredRun };

/**
 * Cancels a run as the app's Cancel button does: the run is read first, and only a run still
 * running gets a cancel request (the process running it notices and stops it); a run that has
 * ended is refused and nothing is written. A cancel that crosses the finish (read running, ended
 * before the request) is kept by the store as a late cancel, changing nothing. The app's cancel
 * action and `runledger runs cancel` both go through here, each saying who asked, from where and why.
 *
 * @internal
 */
export async function cancelRun(store: RunStore, runId: string, request?: CancelRequestInput): Promise<CancelRunResult> {
  const run = await store.getRun(runId);
  if (run === null) return { kind: 'none' };
  if (run.status !== 'running') return { kind: 'ended', run };
  try {
    return { kind: 'requested', run: await store.requestCancel(runId, undefined, request) };
  } catch (error) {
    // deleted (pruned) between the read and the request
    if (RunStoreError.is(error) && error.code === RunStoreErrorCode.RUN_NOT_FOUND) return { kind: 'none' };
    throw error;
  }
}
