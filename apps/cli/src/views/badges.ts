import type { ToolOutcome } from '@runledger/core';
import type { RunStatus } from '@runledger/trace';
import { Html, html } from '../html/Html.js';
import type { Translator } from '../i18n/Translator.js';

const OUTCOME_ICON: Readonly<Record<ToolOutcome, string>> = { ok: '✓', failed: '✕', cancelled: '⊘' };
const STATUS_ICON: Readonly<Record<RunStatus, string>> = {
  running: '◔',
  completed: '✓',
  failed: '✕',
  cancelled: '⊘',
  interrupted: '!',
};

/**
 * The outcome of a tool call as a badge: icon, text from `runs.detail.outcome.<outcome>` and a
 * colour (ok green, failed red, cancelled neutral grey) — never colour alone.
 *
 * @internal
 */
export function outcomeBadge(t: Translator, outcome: ToolOutcome): Html {
  return html`<span class="badge badge-${outcome}" data-outcome="${outcome}"><span aria-hidden="true">${OUTCOME_ICON[outcome]}</span>${t.t(`runs.detail.outcome.${outcome}`)}</span>`;
}

/** The status of a run as a badge with icon and text. @internal */
export function statusBadge(t: Translator, status: RunStatus): Html {
  return html`<span class="badge badge-${status}" data-status="${status}"><span aria-hidden="true">${STATUS_ICON[status]}</span>${t.t(`runs.status.${status}`)}</span>`;
}

/** A badge with a neutral look and the given text. @internal */
export function textBadge(kind: 'flaky' | 'ok' | 'neutral', icon: string, text: string): Html {
  return html`<span class="badge badge-${kind}"><span aria-hidden="true">${icon}</span>${text}</span>`;
}

/** Nothing to show: a dash that screen readers skip. @internal */
export const NONE = Html.trusted('<span class="muted" aria-label="—">—</span>');
