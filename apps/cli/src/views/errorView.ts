import { type Html, html } from '../html/Html.js';
import { layout } from './layout.js';
import type { ViewContext } from './ViewContext.js';

/** A page for an error status: a title and one line of text. @internal */
export function renderErrorView(ctx: ViewContext, title: string, text: string): Html {
  return layout(ctx, {
    title,
    section: null,
    body: html`<h1>${title}</h1><p class="card">${text}</p><p><a href="${ctx.href('/')}">← ${ctx.t.t('runs.detail.back')}</a></p>`,
  });
}
