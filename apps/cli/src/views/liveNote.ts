import { html, type Html } from '../html/Html.js';
import type { ViewContext } from './ViewContext.js';

/** Where the app serves its one script, the live updater (app/liveScript.ts). @internal */
export const LIVE_SCRIPT_PATH = '/assets/live.js';

/** A page that keeps itself up to date: every `seconds` the live script puts in its changed `data-live-region`s. @internal */
export interface LiveView {
  readonly seconds: number;
}

/** Every how many seconds a running run's page updates. @internal */
export const RUN_LIVE: LiveView = { seconds: 2 };

/** Every how many seconds the runs list updates while a run on it runs. @internal */
export const RUNS_LIVE: LiveView = { seconds: 5 };

/**
 * The note of a live page: what the live script says it is doing (updating, paused, failing, over)
 * with the button that pauses it, and, without JavaScript, that the page does not update by itself
 * and a link that reloads it. The note's status line is polite, so a screen reader hears a change of
 * state but not each update.
 *
 * @internal
 */
export function liveNote(ctx: ViewContext, live: LiveView, texts: { readonly over: string; readonly reloadHref: string }): Html {
  const { t } = ctx;
  const seconds = { count: live.seconds };
  return html`<div class="live-note muted" data-live-note hidden data-text-on="${t.t('live.on', seconds)}" data-text-paused="${t.t('live.paused')}" data-text-failed="${t.t('live.failed', seconds)}" data-text-over="${texts.over}" data-text-pause="${t.t('live.pause')}" data-text-resume="${t.t('live.resume')}">
<span data-live-state role="status" aria-live="polite">${t.t('live.on', seconds)}</span> <button type="button" data-live-toggle aria-pressed="false">${t.t('live.pause')}</button>
</div>
<noscript><p class="muted live-note">${t.t('live.noScript')} <a href="${texts.reloadHref}">${t.t('live.reload')}</a></p></noscript>`;
}
