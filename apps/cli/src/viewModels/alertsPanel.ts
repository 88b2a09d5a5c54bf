// What the servers page shows of the alerts `runledger serve --alerts` evaluates (issue 41 item 2):
// the alerts firing now and the last state changes, newest first, each delivered or still owed.
import { transitionId } from '../alertState/alertNotification.js';
import type { AlertStateData } from '../alertState/AlertStateFile.js';
import type { ActiveAlert, AlertFacts } from '../alerts/evaluateAlerts.js';

/** How one change reached its webhooks: all of them, not yet all, or there are none. @internal */
export type AlertDelivery = 'delivered' | 'owed' | 'noWebhook';

/** One state change as the page lists it. @internal */
export interface AlertChangeRow {
  readonly type: 'firing' | 'resolved';
  readonly ruleId: string;
  /** The server, run or `<run>#<sequence>` it is about. */
  readonly subject: string;
  /** The alert's English sentence. */
  readonly summary: string;
  /** What it says, for the page's language; absent for an alert saved before it was kept. */
  readonly facts: AlertFacts | undefined;
  /** When the change was seen (ms). */
  readonly at: number;
  readonly delivery: AlertDelivery;
  /** Webhooks it is still owed to. */
  readonly owedTo: number;
}

/** The alerts section of the servers page. @internal */
export interface AlertsPanel {
  /** Firing now, the longest-firing first. */
  readonly firing: readonly ActiveAlert[];
  /** The last state changes, newest first. */
  readonly changes: readonly AlertChangeRow[];
}

/**
 * The section from the evaluator's saved state: a change is owed while the outbox still holds a
 * notification of it, delivered once it holds none (when it had webhooks at all).
 *
 * @internal
 */
export function alertsPanel(state: AlertStateData): AlertsPanel {
  const owed = new Map<string, number>();
  for (const n of state.outbox) owed.set(n.id, (owed.get(n.id) ?? 0) + 1);
  const firing = Object.values(state.states).sort((a, b) => a.since - b.since || a.key.localeCompare(b.key));
  const changes = state.history
    .map(({ transition, webhooks }, index) => {
      const owedTo = owed.get(transitionId(transition)) ?? 0;
      const delivery: AlertDelivery = owedTo > 0 ? 'owed' : webhooks === 0 ? 'noWebhook' : 'delivered';
      const { alert } = transition;
      return {
        row: {
          type: transition.type,
          ruleId: alert.ruleId,
          subject: alert.subject,
          summary: alert.summary,
          facts: alert.facts,
          at: transition.at,
          delivery,
          owedTo,
        },
        index,
      };
    })
    // newest first; changes seen at one time keep their order reversed too
    .sort((a, b) => b.row.at - a.row.at || b.index - a.index)
    .map(({ row }) => row);
  return { firing, changes };
}
