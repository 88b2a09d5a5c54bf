// One evaluation pass on a store, under its lock: read, evaluate against the saved state, save the
// new state with the notifications owed (before sending any), deliver them, saving after each.
import type { RunStore } from '@runledger/trace';
import type { AlertRules } from './alertRules.js';
import { transitionId } from '../alertState/alertNotification.js';
import type { AlertLock } from './alertLock.js';
import { type AlertStateFile, type PendingNotification, withHistory } from '../alertState/AlertStateFile.js';
import { deliverAlerts, type DeliveryOptions } from './deliverAlerts.js';
import { evaluateAlerts, type ActiveAlert, type AlertTransition } from './evaluateAlerts.js';
import { readAlertReadings } from './readAlertReadings.js';

/** What an evaluator works with. @internal */
export interface AlertEvaluatorOptions {
  readonly store: RunStore;
  readonly rules: AlertRules;
  readonly state: AlertStateFile;
  readonly lock: AlertLock;
  readonly delivery?: DeliveryOptions;
  /** The clock; default Date.now. */
  readonly now?: () => number;
}

/** What one pass did. @internal */
export type AlertPassResult =
  | { readonly evaluated: false }
  | {
      readonly evaluated: true;
      /** The alerts that fire now. */
      readonly firing: readonly ActiveAlert[];
      readonly transitions: readonly AlertTransition[];
      readonly delivered: number;
      /** Notifications still owed (a webhook down): tried first on the next pass. */
      readonly pending: number;
      readonly errors: readonly string[];
    };

/**
 * Evaluates a store's alert rules and notifies their webhooks, once per store (see docs/alerts.md).
 *
 * @internal
 */
export class AlertEvaluator {
  #last: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: AlertEvaluatorOptions) {}

  /**
   * One pass: nothing (`evaluated: false`) while another process holds the store's lock; else
   * the store is read and evaluated, each state change is written to the state file as owed to
   * every webhook (and kept in its history) before any is sent, and each is removed once delivered. Passes of one
   * evaluator run one after the other.
   */
  pass(): Promise<AlertPassResult> {
    const next = this.#last.then(
      () => this.#pass(),
      () => this.#pass(),
    );
    this.#last = next;
    return next;
  }

  async #pass(): Promise<AlertPassResult> {
    const { store, rules, state, lock } = this.options;
    if (!(await lock.tryAcquire())) return { evaluated: false };
    const saved = state.load();
    const readings = await readAlertReadings(store, rules, (this.options.now ?? Date.now)());
    const { states, transitions } = evaluateAlerts(rules, readings, saved.states);
    const owed: PendingNotification[] = [...saved.outbox];
    for (const transition of transitions) {
      for (const webhook of rules.webhooks) owed.push({ id: transitionId(transition), webhook: webhook.name, transition });
    }
    const history = withHistory(saved.history, transitions, rules.webhooks.length);
    state.save({ states, outbox: owed, history });
    let left = owed;
    const result = await deliverAlerts(owed, rules.webhooks, {
      ...this.options.delivery,
      onDelivered: (done) => {
        left = left.filter((n) => n !== done);
        state.save({ states, outbox: left, history });
      },
    });
    state.save({ states, outbox: result.pending, history });
    return {
      evaluated: true,
      firing: Object.values(states),
      transitions,
      delivered: result.delivered.length,
      pending: result.pending.length,
      errors: result.errors,
    };
  }

  /** Gives the store's lock up, after the pass under way. */
  async close(): Promise<void> {
    await this.#last.catch(() => undefined);
    await this.options.lock.release();
  }
}
