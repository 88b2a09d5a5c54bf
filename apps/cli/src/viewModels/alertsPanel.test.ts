import { describe, expect, it } from 'vitest';
import { transitionId } from '../alertState/alertNotification.js';
import { EMPTY_ALERT_STATE } from '../alertState/AlertStateFile.js';
import type { ActiveAlert, AlertTransition } from '../alerts/evaluateAlerts.js';
import { alertsPanel } from './alertsPanel.js';

const alert = (ruleId: string, subject: string, since: number): ActiveAlert => ({
  key: `${ruleId}|${subject}`,
  ruleId,
  kind: 'flaky',
  subject,
  since,
  value: 0.5,
  summary: `${subject} is flaky`,
});

describe('the alerts section of the servers page', () => {
  it('is empty for an empty state', () => {
    expect(alertsPanel(EMPTY_ALERT_STATE)).toEqual({ firing: [], changes: [] });
  });

  it('lists the firing alerts longest first and the changes newest first, each delivered, owed or without webhook', () => {
    const flaky = alert('flaky', 'search', 1_000);
    const slow = alert('p95', 'docs', 500);
    const gone = alert('flaky', 'mail', 100);
    const fired = (a: ActiveAlert, at: number): AlertTransition => ({ type: 'firing', alert: a, at });
    const resolvedMail: AlertTransition = { type: 'resolved', alert: gone, at: 1_000 };
    const state = {
      states: { [flaky.key]: flaky, [slow.key]: slow },
      // the search one is owed to both webhooks, the resolve of mail to one
      outbox: [
        { id: transitionId(fired(flaky, 1_000)), webhook: 'a', transition: fired(flaky, 1_000) },
        { id: transitionId(fired(flaky, 1_000)), webhook: 'b', transition: fired(flaky, 1_000) },
        { id: transitionId(resolvedMail), webhook: 'b', transition: resolvedMail },
      ],
      history: [
        { transition: fired(gone, 100), webhooks: 2 },
        { transition: fired(slow, 500), webhooks: 0 },
        { transition: fired(flaky, 1_000), webhooks: 2 },
        { transition: resolvedMail, webhooks: 2 },
      ],
    };
    const panel = alertsPanel(state);
    expect(panel.firing.map((a) => a.key)).toEqual(['p95|docs', 'flaky|search']);
    expect(panel.changes).toEqual([
      { type: 'resolved', ruleId: 'flaky', subject: 'mail', summary: 'mail is flaky', at: 1_000, delivery: 'owed', owedTo: 1 },
      { type: 'firing', ruleId: 'flaky', subject: 'search', summary: 'search is flaky', at: 1_000, delivery: 'owed', owedTo: 2 },
      { type: 'firing', ruleId: 'p95', subject: 'docs', summary: 'docs is flaky', at: 500, delivery: 'noWebhook', owedTo: 0 },
      { type: 'firing', ruleId: 'flaky', subject: 'mail', summary: 'mail is flaky', at: 100, delivery: 'delivered', owedTo: 0 },
    ]);
  });
});
