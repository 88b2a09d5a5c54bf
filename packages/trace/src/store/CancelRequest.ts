// Who asked for a run's cancel, from where and why: given to RunStore.requestCancel and kept beside
// cancelRequestedAt (the first request wins, with its time).
import { invalid, lineOrNull, object, show, storableText } from './storeValueRules.js';
import { MAX_WHO_LENGTH, MAX_WHY_LENGTH } from '../text/lineRule.js';

/**
 * Where a cancel request came from: the app's Cancel button, the `runledger runs cancel`
 * command, a program through the API (`ActiveRun.cancel`, `RunStore.requestCancel`), or a signal
 * to the process running the run (Ctrl+C).
 *
 * @public
 */
export const CancelRequestSource = {
  APP: 'app',
  CLI: 'cli',
  API: 'api',
  SIGNAL: 'signal',
} as const;

/**
 * One of the strings of {@link (CancelRequestSource:variable)}.
 *
 * @public
 */
export type CancelRequestSource = (typeof CancelRequestSource)[keyof typeof CancelRequestSource];

const SOURCES: ReadonlySet<string> = new Set(Object.values(CancelRequestSource));

/**
 * Whether a value is one of the {@link (CancelRequestSource:variable)} strings.
 *
 * @public
 */
export function isCancelRequestSource(value: unknown): value is CancelRequestSource {
  return typeof value === 'string' && SOURCES.has(value);
}

/**
 * Who asked for a cancel, from where and why, as given to `RunStore.requestCancel`.
 *
 * @public
 */
export interface CancelRequestInput {
  readonly from: CancelRequestSource;
  /**
   * Who asked: an access token's name, a user, an OS user: 1 to 200 characters, no control
   * characters; absent or null when unknown.
   */
  readonly by?: string | null;
  /** Why, as typed with the request: 1 to 500 characters, no control characters; absent or null for none. */
  readonly reason?: string | null;
}

/**
 * The cancel request a store kept for a run: the first one, with its time (the run's `cancelRequestedAt`).
 *
 * @public
 */
export interface StoredCancelRequest {
  readonly at: number;
  readonly from: CancelRequestSource;
  readonly by: string | null;
  readonly reason: string | null;
}

/** The longest name of who asked for a cancel, in characters (code points); checkCancelRequest's rule. */
export const MAX_CANCEL_BY_LENGTH = MAX_WHO_LENGTH;

/** The longest reason a cancel request keeps, in characters (code points); checkCancelRequest's rule. */
export const MAX_CANCEL_REASON_LENGTH = MAX_WHY_LENGTH;

/**
 * A cancel reason as a request keeps it: one line (each run of control characters, line breaks
 * included, as one space; NUL and lone surrogates as U+FFFD), trimmed, at most
 * {@link MAX_CANCEL_REASON_LENGTH} characters (a longer one cut, ending in `…`); null when nothing is left.
 *
 * @internal
 */
export function cancelReasonLine(reason: string): string | null {
  const line = storableText(String(reason).replace(/\p{Cc}+/gu, ' ')).trim();
  if (line.length === 0) return null;
  const chars = Array.from(line.slice(0, MAX_CANCEL_REASON_LENGTH * 2));
  return chars.length <= MAX_CANCEL_REASON_LENGTH ? line : `${chars.slice(0, MAX_CANCEL_REASON_LENGTH - 1).join('')}…`;
}

/**
 * A cancel request's who, where and why, checked: absent fields null.
 *
 * @public
 */
export interface NormalizedCancelRequest {
  readonly from: CancelRequestSource;
  readonly by: string | null;
  readonly reason: string | null;
}

/**
 * Checks who asked for a cancel, from where and why; null when no request is given (a cancel
 * requested without saying where from).
 *
 * @remarks
 * `from` must be a {@link (CancelRequestSource:variable)}; `by` a line of 1 to 200 characters,
 * `reason` of 1 to 500, neither with control characters (each may be absent or null).
 *
 * @throws RunStoreError (`invalid_input`) from `checkCancelRequest`.
 *
 * @public
 */
export function checkCancelRequest(request: CancelRequestInput | undefined): NormalizedCancelRequest | null {
  return request === undefined ? null : cancelRequestOf(request, 'CancelRequestInput');
}

/** {@link checkCancelRequest}'s rules for a request given as `field` (an imported run's `StoredRun.cancelRequest` too). */
export function cancelRequestOf(request: CancelRequestInput, field: string): NormalizedCancelRequest {
  object(request, field);
  if (!isCancelRequestSource(request.from)) {
    throw invalid(`${field}.from must be "app", "cli", "api" or "signal", got ${show(request.from)}`);
  }
  return {
    from: request.from,
    by: lineOrNull(request.by, `${field}.by`, MAX_CANCEL_BY_LENGTH),
    reason: lineOrNull(request.reason, `${field}.reason`, MAX_CANCEL_REASON_LENGTH),
  };
}
