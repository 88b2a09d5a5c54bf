// Where the evaluator keeps what it has seen and what it still owes: the active alerts, the
// notifications not yet delivered and the last state changes (what the servers page shows). One JSON file, replaced atomically (written aside, fsynced,
// renamed), so a crash or a restart leaves either the old state or the new one.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import type { AlertStates, AlertTransition } from '../alerts/evaluateAlerts.js';

/** A notification owed to one webhook. @internal */
export interface PendingNotification {
  /** The transition's id (see transitionId). */
  readonly id: string;
  /** The webhook's name in the rules file. */
  readonly webhook: string;
  readonly transition: AlertTransition;
}

/** One state change the evaluator saw, kept for the servers page. @internal */
export interface AlertHistoryEntry {
  readonly transition: AlertTransition;
  /** How many webhooks it was owed to when seen (0: the rules name none). */
  readonly webhooks: number;
}

/** What the evaluator keeps between passes. @internal */
export interface AlertStateData {
  readonly states: AlertStates;
  readonly outbox: readonly PendingNotification[];
  /** The last state changes, oldest first, at most ALERT_HISTORY_LIMIT (a version 1 file has none). */
  readonly history: readonly AlertHistoryEntry[];
}

/** How many state changes the state file keeps. @internal */
export const ALERT_HISTORY_LIMIT = 100;

/** An empty state: nothing fires, nothing owed, no history. @internal */
export const EMPTY_ALERT_STATE: AlertStateData = Object.freeze({ states: {}, outbox: [], history: [] });

/** The history with the changes of a pass added, the oldest dropped beyond the limit. @internal */
export function withHistory(
  history: readonly AlertHistoryEntry[],
  transitions: readonly AlertTransition[],
  webhooks: number,
): readonly AlertHistoryEntry[] {
  if (transitions.length === 0) return history;
  return [...history, ...transitions.map((transition) => ({ transition, webhooks }))].slice(-ALERT_HISTORY_LIMIT);
}

/** A state file that cannot be read. @internal */
export class AlertStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AlertStateError';
  }
}

/**
 * The evaluator's state in a file.
 *
 * @internal
 */
export class AlertStateFile {
  constructor(readonly path: string) {}

  /**
   * The state as last saved; empty when the file does not exist.
   *
   * @throws AlertStateError from `load` when the file is there but is not a state file.
   */
  load(): AlertStateData {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_ALERT_STATE;
      throw new AlertStateError(`cannot read the alert state file ${this.path}: ${(error as Error).message}`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = null;
    }
    const data = value as { version?: unknown; states?: unknown; outbox?: unknown; history?: unknown } | null;
    if (
      data === null ||
      typeof data !== 'object' ||
      (data.version !== 1 && data.version !== 2) ||
      typeof data.states !== 'object' ||
      data.states === null ||
      !Array.isArray(data.outbox) ||
      (data.version === 2 && !Array.isArray(data.history))
    ) {
      throw new AlertStateError(
        `${this.path} is not an alert state file of runledger (version 1 with states and outbox, or version 2 with history too); move it away to start afresh`,
      );
    }
    // version 1 (before the history): no changes kept yet
    const history = data.version === 2 ? (data.history as AlertHistoryEntry[]).slice(-ALERT_HISTORY_LIMIT) : [];
    return { states: data.states as AlertStates, outbox: data.outbox as PendingNotification[], history };
  }

  /** Replaces the state durably: written aside, fsynced, renamed over the file. */
  save(data: AlertStateData): void {
    const aside = `${this.path}.${process.pid}.tmp`;
    const fd = openSync(aside, 'w');
    try {
      writeSync(fd, `${JSON.stringify({ version: 2, states: data.states, outbox: data.outbox, history: data.history })}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(aside, this.path);
  }
}
