// How a run ended, as every store keeps it: its kind and its facts (JSON), never the sentence —
// that is composed by runTerminationText when it is shown. Prose an older version stored is read
// into the same data once (by the stores' migrations, by importRun, by a finish given as text);
// where the kind's sentence would not be the very words stored, the words are kept beside it.
import type { RunTermination, StoredRun } from '@runledger/trace';
import { isTerminalRunStatus } from '../step/RunStatus.js';
import { readRunTerminationReason, RunTerminationKind, runTerminationText } from '../step/RunTerminationReason.js';
import { invalid, object, show, textOrNull } from './storeValueRules.js';

/**
 * A termination as a store's columns hold it.
 *
 * @public
 */
export interface TerminationColumns {
  /** The kind ({@link (RunTerminationKind:type)}), or null for a run that has not ended. */
  readonly termination_kind: string | null;
  /** The kind's facts as JSON text (`{}` for a kind without facts), or null with the kind. */
  readonly termination_facts: string | null;
  /**
   * The prose an older version stored, kept only where the kind's sentence is not the same words
   * (a reason older versions spelled otherwise); null otherwise.
   */
  readonly termination_reason: string | null;
}

/**
 * The columns of a run that has not ended.
 *
 * @public
 */
export const NO_TERMINATION: TerminationColumns = Object.freeze({
  termination_kind: null,
  termination_facts: null,
  termination_reason: null,
});

function factsOf(termination: RunTermination): object {
  switch (termination.kind) {
    case RunTerminationKind.CANCEL_WHILE_RUNNING:
      return { reported: termination.reported, reason: termination.reason };
    case RunTerminationKind.NO_SIGN_OF_LIFE:
      return { since: termination.since, cancelRequested: termination.cancelRequested };
    case RunTerminationKind.OTHER:
      return { text: termination.text };
    default:
      return {};
  }
}

/**
 * A termination as columns; `prose` is the text an older version stored for it, kept only where
 * the kind's sentence differs from it.
 *
 * @public
 */
export function terminationColumns(termination: RunTermination | null, prose: string | null = null): TerminationColumns {
  if (termination === null) return NO_TERMINATION;
  return Object.freeze({
    termination_kind: termination.kind,
    termination_facts: JSON.stringify(factsOf(termination)),
    termination_reason: prose === null || runTerminationText(termination) === prose ? null : prose,
  });
}

/** Whether two terminations are held alike (what a SQL store compares column by column). */
export function sameTermination(a: TerminationColumns, b: TerminationColumns): boolean {
  return (
    a.termination_kind === b.termination_kind &&
    a.termination_facts === b.termination_facts &&
    a.termination_reason === b.termination_reason
  );
}

/**
 * Prose an older version stored (or a reason given as text), read into columns: a reason runledger
 * wrote gets its kind and facts, any other text is `other`.
 *
 * @public
 */
export function terminationColumnsOfText(prose: string | null): TerminationColumns {
  return prose === null ? NO_TERMINATION : terminationColumns(readRunTerminationReason(prose), prose);
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function parsed(facts: string | null): Record<string, unknown> | null {
  if (facts === null) return null;
  try {
    return record(JSON.parse(facts));
  } catch {
    return null;
  }
}

function terminationOf(kind: string, facts: Record<string, unknown>): RunTermination | null {
  switch (kind) {
    case RunTerminationKind.OPERATOR_CANCEL:
    case RunTerminationKind.STORE_CANCEL:
      return { kind };
    case RunTerminationKind.CANCEL_WHILE_RUNNING: {
      const { reported, reason } = facts;
      return isTerminalRunStatus(reported) && (reason === null || typeof reason === 'string') ? { kind, reported, reason } : null;
    }
    case RunTerminationKind.NO_SIGN_OF_LIFE: {
      const { since, cancelRequested } = facts;
      return typeof since === 'number' && Number.isFinite(since) && typeof cancelRequested === 'boolean'
        ? { kind, since, cancelRequested }
        : null;
    }
    case RunTerminationKind.OTHER:
      return typeof facts['text'] === 'string' ? { kind, text: facts['text'] } : null;
    default:
      return null;
  }
}

/**
 * A termination read back from its columns. A row without a kind but with prose (a store whose
 * schema predates the kind) reads the prose; a damaged kind or facts reads as `other` with what
 * text there is.
 *
 * @public
 */
export function terminationOfColumns(columns: Partial<TerminationColumns>): RunTermination | null {
  const kind = columns.termination_kind ?? null;
  const prose = columns.termination_reason ?? null;
  if (kind === null) return prose === null ? null : readRunTerminationReason(prose);
  const facts = parsed(columns.termination_facts ?? null);
  const read = facts === null ? null : terminationOf(kind, facts);
  return read ?? { kind: RunTerminationKind.OTHER, text: prose ?? columns.termination_facts ?? '' };
}

/**
 * The sentence of a run's termination as a store shows it: the prose an older version stored
 * where it was kept, else the kind's sentence; null while the run has not ended.
 *
 * @public
 */
export function terminationTextOfColumns(columns: Partial<TerminationColumns>): string | null {
  const termination = terminationOfColumns(columns);
  return columns.termination_reason ?? (termination === null ? null : runTerminationText(termination));
}

/**
 * Checks a termination given as data (`FinishRunInput.termination`, `StoredRun.termination`).
 *
 * @throws RunStoreError (`invalid_input`) when it is not one.
 *
 * @public
 */
export function checkTermination(value: unknown, field: string): RunTermination {
  object(value, field);
  const given = value as Record<string, unknown>;
  const kind = given['kind'];
  if (kind === RunTerminationKind.OTHER) {
    const text = textOrNull(given['text'], `${field}.text`);
    if (text !== null) return { kind, text };
  } else if (kind === RunTerminationKind.CANCEL_WHILE_RUNNING) {
    const reason = textOrNull(given['reason'] ?? null, `${field}.reason`);
    const read = terminationOf(kind, { reported: given['reported'], reason });
    if (read !== null) return read;
  } else if (typeof kind === 'string') {
    const read = terminationOf(kind, given);
    if (read !== null) return read;
  }
  throw invalid(`${field} must be a run termination (a kind of RunTerminationKind with its facts), got ${show(value)}`);
}

/**
 * How a run ended, as data: its `termination`, or, from a store that keeps only the words, its
 * `terminationReason` read as prose; null while it runs.
 *
 * @public
 */
export function runTerminationOf(run: StoredRun): RunTermination | null {
  if (run.termination !== undefined) return run.termination;
  return run.terminationReason === null ? null : readRunTerminationReason(run.terminationReason);
}
