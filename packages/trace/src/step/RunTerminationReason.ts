// The termination reasons runledger itself writes — startRun's cancels, a store's decision when a
// cancel and the finish cross, recovery of a run without a sign of life — spelled once. A store
// keeps a termination as data (its kind and facts); the sentence is composed by runTerminationText
// when it is shown. readRunTerminationReason reads the prose older versions stored back into data.
// Any other reason (an agent's own error message) is the agent's text and reads as `other`.
import type { TerminalRunStatus } from '@runledger/trace';
import { isTerminalRunStatus } from './RunStatus.js';

/**
 * The fixed texts of the termination reasons runledger writes, and the prefixes of the composed
 * ones (see {@link cancelWhileRunningReason} and {@link recoveryReason}).
 *
 * @remarks
 * A store keeps a termination as data ({@link RunTermination}); {@link runTerminationText} composes
 * its sentence from these texts when it is shown, and {@link readRunTerminationReason} reads the
 * prose older versions stored.
 *
 * @public
 */
export const RunTerminationReason = Object.freeze({
  /** A cancel in the run's own process (`ActiveRun.cancel()` without a reason). */
  OPERATOR_CANCEL: 'cancelled by the operator',
  /** A cancel requested through the store (the app's Cancel button, another process). */
  STORE_CANCEL: 'cancelled by an operator from outside the run (the app’s Cancel button, or another process through the store)',
  /** What `startRun` stored for a cancel through the store before it said who cancelled. */
  OLD_STORE_CANCEL: 'cancel requested through the store',
  /** Starts the reason a store stores when a cancel requested first wins over the run's own finish. */
  CANCEL_WHILE_RUNNING_PREFIX: 'cancel requested while the run was running (the run reported "',
  /** Starts the reason of a run recovered without a sign of life, followed by an ISO 8601 UTC time. */
  NO_SIGN_OF_LIFE_PREFIX: 'no sign of life since ',
  /** Comes before {@link RunTerminationReason.NO_SIGN_OF_LIFE_PREFIX} when a cancel had been requested. */
  CANCEL_REQUESTED_PREFIX: 'cancel requested; ',
} as const);

/**
 * What kind of termination reason a stored text is, as {@link readRunTerminationReason} reads it.
 *
 * @public
 */
export const RunTerminationKind = Object.freeze({
  OPERATOR_CANCEL: 'operator_cancel',
  STORE_CANCEL: 'store_cancel',
  CANCEL_WHILE_RUNNING: 'cancel_while_running',
  NO_SIGN_OF_LIFE: 'no_sign_of_life',
  /** Any other text: the agent's own reason, shown as it is. */
  OTHER: 'other',
} as const);

/**
 * One of the kinds of {@link (RunTerminationKind:variable)}.
 *
 * @public
 */
export type RunTerminationKind = (typeof RunTerminationKind)[keyof typeof RunTerminationKind];

/**
 * A stored termination reason, read: its kind and the facts the text holds.
 *
 * @public
 */
export type RunTermination =
  | { readonly kind: typeof RunTerminationKind.OPERATOR_CANCEL }
  | { readonly kind: typeof RunTerminationKind.STORE_CANCEL }
  | {
      readonly kind: typeof RunTerminationKind.CANCEL_WHILE_RUNNING;
      /** The status the run's own finish asked for. */
      readonly reported: TerminalRunStatus;
      /** The reason the run's own finish gave, or null. */
      readonly reason: string | null;
    }
  | {
      readonly kind: typeof RunTerminationKind.NO_SIGN_OF_LIFE;
      /** The run's last sign of life (ms since the epoch). */
      readonly since: number;
      /** Whether a cancel had been requested (the run then ended `cancelled`). */
      readonly cancelRequested: boolean;
    }
  | { readonly kind: typeof RunTerminationKind.OTHER; readonly text: string };

/**
 * The termination reason a store stores when a cancel requested while the run was running wins
 * over the run's own finish: it says what the run reported.
 *
 * @public
 */
export function cancelWhileRunningReason(reported: TerminalRunStatus, reason: string | null): string {
  return runTerminationText({ kind: RunTerminationKind.CANCEL_WHILE_RUNNING, reported, reason });
}

/**
 * The termination reason recovery stores for a run without a sign of life since `lastSign`.
 *
 * @public
 */
export function recoveryReason(lastSign: number, cancelRequested: boolean): string {
  return runTerminationText({ kind: RunTerminationKind.NO_SIGN_OF_LIFE, since: lastSign, cancelRequested });
}

/**
 * The sentence of a termination, composed when it is shown: the same words runledger always
 * stored for it (an `other` termination is its own text).
 *
 * @public
 */
export function runTerminationText(termination: RunTermination): string {
  switch (termination.kind) {
    case RunTerminationKind.OPERATOR_CANCEL:
      return RunTerminationReason.OPERATOR_CANCEL;
    case RunTerminationKind.STORE_CANCEL:
      return RunTerminationReason.STORE_CANCEL;
    case RunTerminationKind.CANCEL_WHILE_RUNNING: {
      const { reported, reason } = termination;
      return `${RunTerminationReason.CANCEL_WHILE_RUNNING_PREFIX}${reported}"${reason === null ? '' : `: ${reason}`})`;
    }
    case RunTerminationKind.NO_SIGN_OF_LIFE: {
      const since = `${RunTerminationReason.NO_SIGN_OF_LIFE_PREFIX}${new Date(termination.since).toISOString()}`;
      return termination.cancelRequested ? `${RunTerminationReason.CANCEL_REQUESTED_PREFIX}${since}` : since;
    }
    case RunTerminationKind.OTHER:
      return termination.text;
  }
}

const WHILE_RUNNING_REST = /^([a-z]+)"(?:: ([\s\S]*))?\)$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

/**
 * Reads a termination reason given as prose (what older versions stored, or a reason given as
 * text): one runledger wrote (a cancel, a crossed cancel and finish, a recovery) with its facts,
 * or any other text as `other`.
 *
 * @public
 */
export function readRunTerminationReason(text: string): RunTermination {
  if (text === RunTerminationReason.OPERATOR_CANCEL) return { kind: RunTerminationKind.OPERATOR_CANCEL };
  if (text === RunTerminationReason.STORE_CANCEL || text === RunTerminationReason.OLD_STORE_CANCEL) {
    return { kind: RunTerminationKind.STORE_CANCEL };
  }
  if (text.startsWith(RunTerminationReason.CANCEL_WHILE_RUNNING_PREFIX)) {
    const rest = WHILE_RUNNING_REST.exec(text.slice(RunTerminationReason.CANCEL_WHILE_RUNNING_PREFIX.length));
    if (rest !== null && isTerminalRunStatus(rest[1])) {
      return { kind: RunTerminationKind.CANCEL_WHILE_RUNNING, reported: rest[1], reason: rest[2] ?? null };
    }
  }
  const cancelRequested = text.startsWith(RunTerminationReason.CANCEL_REQUESTED_PREFIX);
  const stale = cancelRequested ? text.slice(RunTerminationReason.CANCEL_REQUESTED_PREFIX.length) : text;
  if (stale.startsWith(RunTerminationReason.NO_SIGN_OF_LIFE_PREFIX)) {
    const time = stale.slice(RunTerminationReason.NO_SIGN_OF_LIFE_PREFIX.length);
    const since = ISO_TIME.test(time) ? Date.parse(time) : Number.NaN;
    if (Number.isFinite(since)) return { kind: RunTerminationKind.NO_SIGN_OF_LIFE, since, cancelRequested };
  }
  return { kind: RunTerminationKind.OTHER, text };
}
