// A cancel request as SQL stores keep it: its columns, and the StoredRun field read from them.
import type { StoredCancelRequest } from '@runledger/trace';
import { isCancelRequestSource } from './CancelRequest.js';

/**
 * A cancel request's columns as every SQL store names them (`cancel_from`, `cancel_by`,
 * `cancel_reason`); absent from a store whose schema predates them.
 *
 * @public
 */
export interface CancelRequestColumns {
  readonly cancel_requested_at: number | null;
  readonly cancel_from?: string | null;
  readonly cancel_by?: string | null;
  readonly cancel_reason?: string | null;
}

/**
 * The kept cancel request of a run's columns, or null: none was requested, or it was requested
 * without saying where from (before the store kept it, or without a request).
 *
 * @public
 */
export function cancelRequestOfColumns(columns: CancelRequestColumns): StoredCancelRequest | null {
  const at = columns.cancel_requested_at;
  if (at === null || !isCancelRequestSource(columns.cancel_from)) return null;
  return Object.freeze({ at, from: columns.cancel_from, by: columns.cancel_by ?? null, reason: columns.cancel_reason ?? null });
}

/**
 * A run's `cancelRequest` field of its columns, to spread into the run: present only when one was
 * kept (as the late finish is).
 *
 * @internal
 */
export function cancelRequestField(columns: CancelRequestColumns): { readonly cancelRequest?: StoredCancelRequest } {
  const request = cancelRequestOfColumns(columns);
  return request === null ? {} : { cancelRequest: request };
}
