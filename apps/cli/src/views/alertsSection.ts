// The alerts section of the servers page (issue 41 item 2): the alerts firing now and the recent
// state changes, each delivered or owed; without `serve --alerts`, one line pointing at the docs.
import type { AlertFacts } from '../alerts/evaluateAlerts.js';
import { type Html, html } from '../html/Html.js';
import { alertSummaryText } from '../i18n/alertSummaryText.js';
import type { AlertsPanel, AlertChangeRow } from '../viewModels/alertsPanel.js';
import { textBadge } from './badges.js';
import type { ViewContext } from './ViewContext.js';

/** What the servers page knows of alerts: not evaluated here, a state file it cannot read, or the panel. @internal */
export type AlertsSection =
  | { readonly kind: 'off' }
  | { readonly kind: 'unreadable'; readonly error: string }
  | { readonly kind: 'panel'; readonly panel: AlertsPanel };

const when = (ctx: ViewContext, ms: number): Html => html`<time datetime="${ctx.t.iso(ms)}">${ctx.t.date(ms)}</time>`;

/** The alert's sentence in the page's language; one saved before its facts were kept, in English. */
const summary = (ctx: ViewContext, alert: { readonly summary: string; readonly facts?: AlertFacts | undefined }): Html =>
  alert.facts === undefined
    ? html`<small class="muted" lang="en">${alert.summary}</small>`
    : html`<small class="muted">${alertSummaryText(ctx.t, alert.facts)}</small>`;

function changeItem(ctx: ViewContext, row: AlertChangeRow): Html {
  const { t } = ctx;
  const badge =
    row.type === 'firing'
      ? textBadge('flaky', '⚠', t.t('servers.alerts.type.firing'))
      : textBadge('ok', '✓', t.t('servers.alerts.type.resolved'));
  const delivery =
    row.delivery === 'owed'
      ? t.t('servers.alerts.owed', { count: row.owedTo })
      : t.t(row.delivery === 'delivered' ? 'servers.alerts.delivered' : 'servers.alerts.noWebhook');
  return html`<li data-change="${row.type}" data-rule="${row.ruleId}" data-delivery="${row.delivery}">${badge} <span class="mono">${row.ruleId}</span> · <span class="mono">${row.subject}</span> · ${when(ctx, row.at)} · <span class="delivery">${delivery}</span><br>${summary(ctx, row)}</li>`;
}

/** The section, headed `Alerts`. @internal */
export function renderAlertsSection(ctx: ViewContext, section: AlertsSection): Html {
  const { t } = ctx;
  const head = html`<h2 id="alerts-title">${t.t('servers.alerts.title')}</h2>`;
  if (section.kind === 'off')
    return html`<section class="alerts" data-section="alerts" data-alerts="off" aria-labelledby="alerts-title">${head}<p class="muted">${t.t('servers.alerts.off')}</p></section>`;
  if (section.kind === 'unreadable')
    return html`<section class="alerts" data-section="alerts" data-alerts="unreadable" aria-labelledby="alerts-title">${head}<p class="note note-error">${t.t(
      'servers.alerts.unreadable',
      { error: section.error },
    )}</p></section>`;
  const { firing, changes } = section.panel;
  const firingPart =
    firing.length === 0
      ? html`<p class="muted" data-firing="0">${t.t('servers.alerts.firingNone')}</p>`
      : html`<h3>${t.t('count.alertsFiring', { count: firing.length })}</h3><ul class="alert-list" data-firing="${firing.length}">${firing.map(
          (a) =>
            html`<li data-rule="${a.ruleId}" data-subject="${a.subject}">${textBadge('flaky', '⚠', a.ruleId)} <span class="mono">${a.subject}</span> · <time datetime="${t.iso(a.since)}">${t.t('servers.alerts.since', { time: t.date(a.since) })}</time><br>${summary(ctx, a)}</li>`,
        )}</ul>`;
  const changesPart =
    changes.length === 0
      ? html`<p class="muted">${t.t('servers.alerts.changesNone')}</p>`
      : html`<ol class="alert-list alert-changes">${changes.map((row) => changeItem(ctx, row))}</ol>`;
  return html`<section class="alerts" data-section="alerts" data-alerts="on" aria-labelledby="alerts-title">${head}${firingPart}<h3>${t.t(
    'servers.alerts.changes',
  )}</h3>${changesPart}</section>`;
}
