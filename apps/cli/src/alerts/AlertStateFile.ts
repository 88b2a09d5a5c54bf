// Where the evaluator keeps what it has seen and what it still owes: the active alerts and the
// notifications not yet delivered. One JSON file, replaced atomically (written aside, fsynced,
// renamed), so a crash or a restart leaves either the old state or the new one.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import type { AlertStates, AlertTransition } from './evaluateAlerts.js';

/** A notification owed to one webhook. @internal */
export interface PendingNotification {
  /** The transition's id (see transitionId). */
  readonly id: string;
  /** The webhook's name in the rules file. */
  readonly webhook: string;
  readonly transition: AlertTransition;
}

/** What the evaluator keeps between passes. @internal */
export interface AlertStateData {
  readonly states: AlertStates;
  readonly outbox: readonly PendingNotification[];
}

/** An empty state: nothing fires, nothing owed. @internal */
export const EMPTY_ALERT_STATE: AlertStateData = Object.freeze({ states: {}, outbox: [] });

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
    const data = value as { version?: unknown; states?: unknown; outbox?: unknown } | null;
    if (
      data === null ||
      typeof data !== 'object' ||
      data.version !== 1 ||
      typeof data.states !== 'object' ||
      data.states === null ||
      !Array.isArray(data.outbox)
    ) {
      throw new AlertStateError(
        `${this.path} is not an alert state file of runledger (version 1 with states and outbox); move it away to start afresh`,
      );
    }
    return { states: data.states as AlertStates, outbox: data.outbox as PendingNotification[] };
  }

  /** Replaces the state durably: written aside, fsynced, renamed over the file. */
  save(data: AlertStateData): void {
    const aside = `${this.path}.${process.pid}.tmp`;
    const fd = openSync(aside, 'w');
    try {
      writeSync(fd, `${JSON.stringify({ version: 1, states: data.states, outbox: data.outbox })}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(aside, this.path);
  }
}
