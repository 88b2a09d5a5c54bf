// Where the evaluator keeps what it has seen and what it still owes: the active alerts, the
// notifications not yet delivered and the last state changes (what the servers page shows). One JSON file, replaced atomically (written aside, fsynced,
// renamed), so a crash or a restart leaves either the old state or the new one.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { z } from 'zod';
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

// What a state file must hold, field by field: a hand-edited or torn entry is refused with its
// path (the servers page then says the file cannot be read) instead of failing where it is read.
const when = z.number().finite();
const count = z.number().int().nonnegative();
const ms = z.number().finite().nonnegative();
const rate = z.number().min(0).max(1);
const alertFacts = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('flaky'), server: z.string(), failureRate: rate, answered: count, windowMs: ms }),
  z.object({ kind: z.literal('failure-rate'), server: z.string(), failureRate: rate, answered: count, windowMs: ms, aboveRate: rate }),
  z.object({ kind: z.literal('p95'), server: z.string(), p95Ms: ms, answered: count, windowMs: ms, aboveMs: ms }),
  z.object({ kind: z.literal('stalled-run'), runId: z.string(), configuration: z.string(), silentMs: ms, afterMs: ms }),
  z.object({ kind: z.literal('may-have-executed'), server: z.string(), tool: z.string().nullable(), runId: z.string(), sequence: count }),
]);
const activeAlert = z.object({
  key: z.string(),
  ruleId: z.string(),
  kind: z.string(),
  subject: z.string(),
  since: when,
  value: z.number().finite().nullable(),
  summary: z.string(),
  // Saved since the page says alerts in its own language; facts it cannot read are dropped, and the
  // alert is shown by its English summary, as one saved before them.
  facts: alertFacts.optional().catch(undefined),
});
const transition = z.object({ type: z.enum(['firing', 'resolved']), alert: activeAlert, at: when });
const states = z.record(z.string(), activeAlert);
const outbox = z.array(z.object({ id: z.string(), webhook: z.string(), transition }));
const STATE_FILE = z.discriminatedUnion('version', [
  z.object({ version: z.literal(1), states, outbox }),
  z.object({
    version: z.literal(2),
    states,
    outbox,
    history: z.array(z.object({ transition, webhooks: z.number().int().nonnegative() })),
  }),
]);

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
    const parsed = STATE_FILE.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length === 0 ? '' : `: ${issue.path.map(String).join('.')} ${issue.message}`;
      throw new AlertStateError(
        `${this.path} is not an alert state file of runledger (version 1 with states and outbox, or version 2 with history too)${where}; move it away to start afresh`,
      );
    }
    const data = parsed.data;
    // version 1 (before the history): no changes kept yet
    const history = data.version === 2 ? data.history.slice(-ALERT_HISTORY_LIMIT) : [];
    return { states: data.states as AlertStates, outbox: data.outbox as PendingNotification[], history: history as AlertHistoryEntry[] };
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
