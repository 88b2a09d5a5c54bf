// The runs app and the `runledger` CLI as a library: what the binary, the tests and the
// benchmarks use. A private package: everything here is @internal.
export { createRunsApp, type RunsAppHandler, type RunsAppOptions } from './app/createRunsApp.js';
export { type RunsServer, type RunsServerOptions, ServeConfigError, startRunsServer } from './app/startRunsServer.js';
export { timelinePage } from './app/timelinePage.js';
export { type CliIo } from './cli/CliIo.js';
export { runCli } from './cli/runCli.js';
export { DEMO_SERVER_IDS, type DemoServers, demoServerScript, startDemoServers } from './demo/DemoServers.js';
export { DEMO_RUN_COUNT, type DemoOptions, type DemoResult, runDemo } from './demo/runDemo.js';
export { escapeHtml, Html, html } from './html/Html.js';
export { CATALOGS, isLocale, Locale, LOCALES, negotiateLocale } from './i18n/Locale.js';
export { de } from './i18n/messagesDe.js';
export { en, type MessageCatalog, type MessageKey } from './i18n/messagesEn.js';
export { Translator } from './i18n/Translator.js';
export { TIMELINE_PAGE_SIZE } from './pages/runPage.js';
