import type { IncomingMessage, ServerResponse } from 'node:http';
import { RunStoreError, type RunStore, type StoredRun } from '@runledger/trace';
import type { Html } from '../html/Html.js';
import { isLocale, negotiateLocale } from '../i18n/Locale.js';
import { Translator } from '../i18n/Translator.js';
import { renderErrorView } from '../views/errorView.js';
import { reasonText } from '../views/reasonText.js';
import { ViewContext } from '../views/ViewContext.js';
import { renderRunView, TIMELINE_PAGE_SIZE } from '../views/runView.js';
import { renderRunsView } from '../views/runsView.js';
import { readServersQuery, SERVER_WINDOWS, ServerWindow, windowGiven, windowSince } from '../viewModels/serversQuery.js';
import { PROMETHEUS_CONTENT_TYPE } from '../views/prometheusText.js';
import { renderMetricsView } from '../views/metricsView.js';
import { readMetrics } from './readMetrics.js';
import { readFittingWindow } from './readFittingWindow.js';
import { renderServersView } from '../views/serversView.js';
import type { AlertsSection } from '../views/alertsSection.js';
import { AlertStateError, AlertStateFile } from '../alertState/AlertStateFile.js';
import { alertsPanel } from '../viewModels/alertsPanel.js';
import { renderServerView } from '../views/serverView.js';
import { readServerPage } from './readServerPage.js';
import { readServerId } from '../viewModels/serverPath.js';
import { readServerTrends } from '../viewModels/serverTrends.js';
import { HealthBucketCache } from './HealthBucketCache.js';
import { carriesToken, hostIsLoopback, isSameOrigin, TOKEN_COOKIE } from './AccessPolicy.js';
import { cancelRun } from './cancelRun.js';
import { readCancelRequest } from './readCancelRequest.js';
import { OpenCallTracker } from './OpenCallTracker.js';
import { readRunsList } from './readRunsList.js';
import { FilterSuggestionCache } from './FilterSuggestionCache.js';
import { resolveRunId } from './resolveRunId.js';
import { readTimelineSlice } from './timelineSlice.js';
import { uriComponent } from '../viewModels/uriComponent.js';
import { readZoomRange } from '../viewModels/zoomRange.js';
import { LIVE_SCRIPT } from './liveScript.js';
import { LIVE_SCRIPT_PATH } from '../views/liveNote.js';

/** How the runs app is set up. @public */
export interface RunsAppOptions {
  readonly store: RunStore;
  /** When set, every request must carry it (Bearer header, cookie or `?token=`); else 401. */
  readonly token?: string | null;
  /**
   * Who asked for a cancel through the app: the access token's name (default `token`); on a loopback
   * app without a token, the name given here (the operator at that machine), else no one.
   */
  readonly tokenName?: string | null;
  /**
   * The header an authenticating proxy in front of the app names its user in: a cancel is asked by
   * that user when the header is given. Never trusted unless named here; default none.
   */
  readonly trustUserHeader?: string | null;
  /** Insist on a loopback Host header (DNS-rebinding guard); on by default when there is no token. */
  readonly loopbackOnly?: boolean;
  /** The time zone dates are shown in; default the process's. */
  readonly timeZone?: string;
  /** The clock; default Date.now. */
  readonly now?: () => number;
  /** Runs per page of the list; default 50. */
  readonly runsPageSize?: number;
  /** Where a failure the app answers with 500 is logged (one line, never the token); default stderr. */
  readonly log?: (line: string) => void;
  /**
   * The state file of the alert evaluator running beside the app (`serve --alerts`): the servers
   * page shows its firing alerts and recent changes. Default none: the page says alerts are off.
   */
  readonly alertStateFile?: string | null;
}

/** A request handler for node:http. @public */
export type RunsAppHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Headers on every response of the app, error responses included. @internal */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
};

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The methods each route answers; anything else is 405 with this list as `Allow`. */
const READ = 'GET, HEAD';
const ACTION = 'POST';

/**
 * The request path with runs of slashes collapsed, so that no redirect built from it can start
 * with `//` (a protocol-relative address to another host) and no link in a page either. The URL
 * parser has already resolved `.` and `..` segments and turned `\\` into `/`.
 */
function normalisePath(pathname: string): string {
  const path = pathname.replace(/\/{2,}/g, '/');
  return path.startsWith('/') ? path : `/${path}`;
}

/** A same-site `Location`: a path that starts with exactly one slash, else the home page. */
function localLocation(path: string, search: string): string {
  return /^\/(?![/\\])/.test(path) ? path + search : '/';
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8', ...headers });
  res.end(body);
}

function sendView(res: ServerResponse, status: number, view: Html, headers: Record<string, string> = {}): void {
  send(res, status, view.value, { 'content-language': headers['content-language'] ?? '', ...headers });
}

/** The alerts section from the evaluator's state file: off without one, its error when it cannot be read. */
function readAlertsSection(path: string | null): AlertsSection {
  if (path === null) return { kind: 'off' };
  try {
    return { kind: 'panel', panel: alertsPanel(new AlertStateFile(path).load()) };
  } catch (error) {
    if (error instanceof AlertStateError) return { kind: 'unreadable', error: error.message };
    throw error;
  }
}

/** Why a cancel of a run that has ended was refused: how, when and why it ended. */
function cancelEndedText(t: Translator, run: StoredRun): string {
  const params = { id: run.id, status: t.t(`runs.status.${run.status}`), time: t.date(run.finishedAt ?? run.createdAt) };
  const reason = reasonText(t, run);
  return reason === null ? t.t('runs.detail.cancelEnded', params) : t.t('runs.detail.cancelEndedWith', { ...params, reason });
}

/**
 * Makes the runs app: a node:http handler serving the runs list, a run's timeline, the MCP
 * servers page and the cancel action from a {@link RunStore}.
 *
 * @remarks
 * Server-rendered HTML that needs no JavaScript (one same-origin script keeps live pages up to date
 * in place; without it they offer a reload link); every value is escaped. With a token, each
 * request without it gets 401. The cancel action is a POST that must come from this app's own
 * origin, takes a short id as the run page does, is idempotent, and is refused (409, nothing written) on a run that has ended.
 *
 * @public
 */
export function createRunsApp(options: RunsAppOptions): RunsAppHandler {
  const { store } = options;
  const token = options.token ?? null;
  const loopbackOnly = options.loopbackOnly ?? token === null;
  // who asked for a cancel: the token's name (`token` by default); a loopback app without a token
  // names the one given it, else no one
  const requester = { tokenName: options.tokenName ?? (token === null ? null : 'token'), trustUserHeader: options.trustUserHeader ?? null };
  const now = options.now ?? Date.now;
  const runsPageSize = options.runsPageSize ?? 50;
  // the time zone dates are shown in, and the runs list's time filters read in
  const timeZone = options.timeZone ?? new Intl.DateTimeFormat().resolvedOptions().timeZone;
  const alertStateFile = options.alertStateFile ?? null;
  const writeLog = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const log = (line: string) => writeLog(token === null ? line : line.split(token).join('[token]'));
  // the calls on the wire of the running runs viewed: a view reads only the steps appended since the last
  const openCalls = new OpenCallTracker();
  // the server health of the charts' closed hours and days, reused for a minute
  const healthBuckets = new HealthBucketCache();
  const filterSuggestions = new FilterSuggestionCache();
  const translators = new Map<string, Translator>();
  const translator = (locale: 'en' | 'de'): Translator => {
    let t = translators.get(locale);
    if (t === undefined) {
      t = new Translator(locale, { timeZone });
      translators.set(locale, t);
    }
    return t;
  };

  return async (req, res) => {
    let url: URL;
    try {
      // a path that starts with `//` is a path here, never a host (`new URL('//x/', base)` would read one)
      const target = req.url ?? '/';
      url = target.startsWith('/') ? new URL(`http://runledger.invalid${target}`) : new URL(target, 'http://runledger.invalid/');
    } catch {
      send(res, 400, 'Bad request', { 'content-type': 'text/plain; charset=utf-8' });
      return;
    }
    const carriedTokenInQuery = url.searchParams.has('token');
    if (token !== null) {
      if (!carriesToken(req, url, token)) {
        send(
          res,
          401,
          'Unauthorized: this runledger app needs its access token (Authorization: Bearer <token>, or open it once with ?token=<token>).\n',
          {
            'content-type': 'text/plain; charset=utf-8',
            'www-authenticate': 'Bearer realm="runledger"',
          },
        );
        return;
      }
      if (url.searchParams.has('token')) {
        // the token never reaches a page, a link or a log line: it leaves the URL here
        url.searchParams.delete('token');
      }
      if (carriedTokenInQuery && (req.method === 'GET' || req.method === 'HEAD')) {
        res.writeHead(303, {
          ...SECURITY_HEADERS,
          location: localLocation(normalisePath(url.pathname), url.search),
          'set-cookie': `${TOKEN_COOKIE}=${uriComponent(token)}; Path=/; HttpOnly; SameSite=Strict`,
        });
        res.end();
        return;
      }
    } else if (loopbackOnly && !hostIsLoopback(req)) {
      send(res, 403, 'Forbidden: this runledger app answers only to localhost or 127.0.0.1.\n', {
        'content-type': 'text/plain; charset=utf-8',
      });
      return;
    }

    const queryLang = url.searchParams.get('lang');
    const locale = negotiateLocale(queryLang, req.headers['accept-language']);
    const ctx = new ViewContext({
      t: translator(locale),
      explicitLang: queryLang !== null && isLocale(queryLang.trim().toLowerCase()) ? locale : null,
      path: normalisePath(url.pathname),
      query: url.searchParams,
    });
    const { t } = ctx;
    const lang = { 'content-language': locale, vary: 'Accept-Language' };
    const method = req.method ?? 'GET';
    const path = normalisePath(url.pathname);

    const notFound = (text = t.t('error.notFound.text')) => sendView(res, 404, renderErrorView(ctx, t.t('error.notFound'), text), lang);
    const badRequest = (text: string) => sendView(res, 400, renderErrorView(ctx, t.t('error.badRequest'), text), lang);
    const notAllowed = (allow: string) =>
      sendView(res, 405, renderErrorView(ctx, t.t('error.methodNotAllowed'), `${method} ${path}`), { ...lang, allow });

    try {
      if (path === '/' || path === '/runs') {
        if (method !== 'GET' && method !== 'HEAD') return notAllowed(READ);
        const [list, suggestions] = await Promise.all([
          readRunsList(store, url.searchParams, { timeZone, pageSize: runsPageSize }),
          filterSuggestions.read(store, now()),
        ]);
        return sendView(res, list.problems.length === 0 ? 200 : 400, renderRunsView(ctx, { ...list, suggestions }, now()), lang);
      }

      if (path === '/servers') {
        if (method !== 'GET' && method !== 'HEAD') return notAllowed(READ);
        const at = now();
        // no window in the URL: the shortest that holds every call (issue 40 item 5)
        const fitted = windowGiven(url.searchParams) ? null : await readFittingWindow(store, at);
        const query = { ...readServersQuery(url.searchParams), ...(fitted === null ? {} : { window: fitted.window }) };
        const since = windowSince(query.window, at);
        const [rows, trends] = await Promise.all([
          fitted?.rows ?? store.serverHealth(since === undefined ? {} : { since }),
          readServerTrends(store, query.window, at, healthBuckets),
        ]);
        return sendView(res, 200, renderServersView(ctx, rows, query, trends, readAlertsSection(alertStateFile)), lang);
      }

      const serverMatch = /^\/servers\/([^/]+)$/.exec(path);
      if (serverMatch !== null) {
        if (method !== 'GET' && method !== 'HEAD') return notAllowed(READ);
        const server = readServerId(serverMatch[1] ?? '');
        if (server === null) return badRequest(t.t('error.badServerId'));
        const at = now();
        const window = windowGiven(url.searchParams)
          ? readServersQuery(url.searchParams).window
          : (await readFittingWindow(store, at, server)).window;
        const page = await readServerPage(store, server, window, url.searchParams.get('cursor') || null, at, healthBuckets);
        if (page === null) return notFound(t.t('server.notFound', { server }));
        return sendView(res, 200, renderServerView(ctx, page), lang);
      }

      const runMatch = /^\/runs\/([^/]+)(\/cancel)?$/.exec(path);
      if (runMatch !== null) {
        const isCancel = runMatch[2] !== undefined;
        if (isCancel ? method !== 'POST' : method !== 'GET' && method !== 'HEAD') return notAllowed(isCancel ? ACTION : READ);
        let runId: string;
        try {
          runId = decodeURIComponent(runMatch[1] ?? '');
        } catch {
          runId = '';
        }
        if (!RUN_ID.test(runId)) return badRequest(t.t('error.badRunId'));
        if (isCancel && !isSameOrigin(req)) {
          return sendView(res, 403, renderErrorView(ctx, t.t('error.forbidden'), t.t('error.crossOrigin')), lang);
        }
        // the full id, or a unique prefix of 8+ characters (the short id): the page redirects to the full id, the cancel acts on it
        const found = await resolveRunId(store, runId);
        if (found.kind === 'ambiguous') {
          const text = t.t('runs.detail.ambiguousId', { id: runId, count: found.ids.length, ids: found.ids.join(', ') });
          return sendView(res, 300, renderErrorView(ctx, t.t('error.notFound'), text), lang);
        }
        if (found.kind !== 'run') return notFound(t.t('runs.detail.notFound', { id: runId }));
        if (isCancel) {
          // only a run still running is cancelled; one that has ended is refused, nothing written
          const asked = await readCancelRequest(req, requester);
          if ('problem' in asked) return badRequest(asked.problem);
          const cancelled = await cancelRun(store, found.run.id, asked.request);
          if (cancelled.kind === 'none') return notFound(t.t('runs.detail.notFound', { id: runId }));
          if (cancelled.kind === 'ended')
            return sendView(res, 409, renderErrorView(ctx, t.t('error.runEnded'), cancelEndedText(t, cancelled.run)), lang);
          res.writeHead(303, { ...SECURITY_HEADERS, location: ctx.href(`/runs/${uriComponent(found.run.id)}`) });
          res.end();
          return;
        }
        const run = found.run;
        if (run.id !== runId) {
          res.writeHead(302, { ...SECURITY_HEADERS, location: localLocation(`/runs/${uriComponent(run.id)}`, url.search) });
          res.end();
          return;
        }
        // `to` asks for a zoomed range of steps, checked by its rule; `from` alone is a page, read leniently
        const zoom = readZoomRange(url.searchParams, run.stepCount, TIMELINE_PAGE_SIZE);
        if (zoom.kind === 'problems') {
          return badRequest(
            zoom.problems
              .map((problem) => t.t('runs.zoom.error.param', { param: problem.param, rule: t.t(problem.message, problem.params) }))
              .join(' '),
          );
        }
        let from: number;
        let size = TIMELINE_PAGE_SIZE;
        if (zoom.kind === 'range') {
          from = zoom.range.from;
          size = zoom.range.to - zoom.range.from;
        } else {
          const fromParam = Number(url.searchParams.get('from') ?? '0');
          from = Number.isSafeInteger(fromParam) && fromParam > 0 ? Math.min(fromParam, Math.max(0, run.stepCount - 1)) : 0;
        }
        const slice = await readTimelineSlice(store, run, from, size, openCalls);
        return sendView(res, 200, renderRunView(ctx, run, slice, now(), { zoomed: zoom.kind === 'range' }), lang);
      }

      if (path === '/metrics') {
        if (method !== 'GET' && method !== 'HEAD') return notAllowed(READ);
        const window = url.searchParams.get('window') ?? ServerWindow.ALL;
        const known = SERVER_WINDOWS.find((key) => key === window);
        if (known === undefined) {
          return send(res, 400, `Bad request: window must be one of ${SERVER_WINDOWS.join(', ')}, got ${JSON.stringify(window)}.\n`, {
            'content-type': 'text/plain; charset=utf-8',
          });
        }
        return send(res, 200, renderMetricsView(await readMetrics(store, known, now())), { 'content-type': PROMETHEUS_CONTENT_TYPE });
      }
      if (path === '/healthz') {
        if (method !== 'GET' && method !== 'HEAD') return notAllowed(READ);
        return send(res, 200, 'ok\n', { 'content-type': 'text/plain; charset=utf-8' });
      }
      if (path === LIVE_SCRIPT_PATH) {
        if (method !== 'GET' && method !== 'HEAD') return notAllowed(READ);
        return send(res, 200, LIVE_SCRIPT, { 'content-type': 'text/javascript; charset=utf-8' });
      }
      if (path === '/favicon.ico') {
        if (method !== 'GET' && method !== 'HEAD') return notAllowed(READ);
        res.writeHead(204, SECURITY_HEADERS);
        res.end();
        return;
      }
      return notFound();
    } catch (error) {
      if (RunStoreError.is(error) && error.code === 'invalid_input') {
        return badRequest(error.message);
      }
      // the page says only that something failed; the details (SQL, stack) go to the log
      log(
        `runledger app: ${method} ${path} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`.replace(
          /\n\s*/g,
          ' | ',
        ),
      );
      if (!res.headersSent) {
        sendView(res, 500, renderErrorView(ctx, t.t('error.server'), t.t('error.server.text')), lang);
      } else {
        res.destroy();
      }
    }
  };
}
