import { Html, html } from '../html/Html.js';
import { LOCALES } from '../i18n/Locale.js';
import { LIVE_SCRIPT_PATH, type LiveView } from './liveNote.js';
import type { ViewContext } from './ViewContext.js';
import { STYLES } from './styles.js';

/** Which top navigation entry a page belongs to. @internal */
export type NavSection = 'runs' | 'servers' | null;

/**
 * Wraps a page body in the document: head, inline stylesheet, navigation, language switch; a live
 * page (`view.live`) loads the live script, which keeps its `data-live-region`s up to date in place.
 *
 * @internal
 */
export function layout(
  ctx: ViewContext,
  view: { readonly title: string; readonly section: NavSection; readonly body: Html; readonly live?: LiveView },
): Html {
  const { t } = ctx;
  const nav = (section: Exclude<NavSection, null>, path: string, label: string) =>
    html`<a href="${ctx.href(path)}"${view.section === section ? Html.trusted(' aria-current="page"') : ''}>${label}</a>`;
  return html`<!doctype html>
<html lang="${ctx.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${view.title} · ${t.t('app.title')}</title>
<style>${Html.trusted(STYLES)}</style>
${view.live !== undefined ? html`<script src="${LIVE_SCRIPT_PATH}" defer></script>` : ''}
</head>
<body${view.live !== undefined ? html` data-live-seconds="${String(view.live.seconds)}"` : ''}>
<a class="skip" href="#content">${t.t('nav.skip')}</a>
<header class="top">
<a class="brand" href="${ctx.href('/')}">${t.t('app.title')}<small>${t.t('app.tagline')}</small></a>
<nav class="main" aria-label="${t.t('app.title')}">${nav('runs', '/', t.t('nav.runs'))}${nav('servers', '/servers', t.t('nav.servers'))}</nav>
<nav class="lang" aria-label="${t.t('nav.language')}"><span>${t.t('nav.language')}:</span>${LOCALES.map(
    (locale) =>
      html`<a href="${ctx.hrefInLanguage(locale)}" hreflang="${locale}" lang="${locale}"${locale === ctx.locale ? Html.trusted(' aria-current="true"') : ''}>${locale.toUpperCase()}</a>`,
  )}</nav>
</header>
<main id="content">
${view.body}
</main>
</body>
</html>
`;
}
