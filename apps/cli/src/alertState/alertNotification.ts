// The bodies a webhook receives for one alert transition: the generic JSON body and the
// Slack-compatible `{ text }` one.
import type { AlertWebhook } from '../alerts/alertRules.js';
import type { AlertTransition } from '../alerts/evaluateAlerts.js';

/** The generic JSON body of one transition (docs/alerts.md lists its fields). @internal */
export interface AlertNotificationBody {
  /** The same for every delivery of this transition: receivers may de-duplicate on it (also the `Idempotency-Key` header). */
  readonly id: string;
  readonly status: 'firing' | 'resolved';
  readonly rule: string;
  readonly kind: string;
  readonly subject: string;
  readonly summary: string;
  readonly value: number | null;
  /** When the alert started to fire (ISO 8601). */
  readonly since: string;
  /** When this change was seen (ISO 8601). */
  readonly at: string;
  readonly source: 'runledger';
}

/** The id of a transition: the alert's key, its first firing, and the change. @internal */
export function transitionId(transition: AlertTransition): string {
  return `${transition.alert.key}|${transition.alert.since}|${transition.type}`;
}

/** The generic JSON body of a transition. @internal */
export function notificationBody(transition: AlertTransition): AlertNotificationBody {
  const { alert } = transition;
  return {
    id: transitionId(transition),
    status: transition.type,
    rule: alert.ruleId,
    kind: alert.kind,
    subject: alert.subject,
    summary: alert.summary,
    value: alert.value,
    since: new Date(alert.since).toISOString(),
    at: new Date(transition.at).toISOString(),
    source: 'runledger',
  };
}

/** The Slack-compatible body of a transition: one line of text. @internal */
export function slackBody(transition: AlertTransition): { readonly text: string } {
  const { alert } = transition;
  return transition.type === 'firing'
    ? { text: `[FIRING] ${alert.ruleId}: ${alert.summary}` }
    : { text: `[RESOLVED] ${alert.ruleId}: resolved (firing since ${new Date(alert.since).toISOString()}): ${alert.summary}` };
}

/** The body a webhook of that format receives. @internal */
export function webhookBody(webhook: AlertWebhook, transition: AlertTransition): unknown {
  return webhook.format === 'slack' ? slackBody(transition) : notificationBody(transition);
}
