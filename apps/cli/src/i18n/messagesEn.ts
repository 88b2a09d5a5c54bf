import type { CatalogEntry, PluralForms } from './PluralForms.js';

/**
 * The English message catalog: the reference every other language must match key for key.
 *
 * @remarks
 * `{name}` marks a parameter. A message that names a count is an object of plural forms (see
 * {@link PluralForms}) chosen by its `{count}`: never `1 runs`. The outcome keys end in the {@link ToolOutcome} strings themselves
 * (`runs.detail.outcome.<outcome>`), so the one string that travels from the transport is the key.
 *
 * @internal
 */
export const en = {
  'app.title': 'runledger',
  'app.tagline': 'Every tool call ends ok, failed or cancelled.',
  'nav.runs': 'Runs',
  'nav.servers': 'MCP servers',
  'nav.language': 'Language',
  'nav.skip': 'Skip to content',

  'runs.title': 'Runs',
  'runs.empty': 'No runs match these filters.',
  'runs.filter.legend': 'Filter runs',
  'runs.filter.status': 'Status',
  'runs.filter.status.any': 'Any status',
  'runs.filter.outcome': 'Tool calls',
  'runs.filter.outcome.any': 'Any',
  'runs.filter.outcome.failed': 'Has failed calls',
  'runs.filter.outcome.cancelled': 'Has cancelled calls',
  'runs.filter.apply': 'Apply',
  'runs.filter.reset': 'Reset',
  'runs.col.status': 'Status',
  'runs.col.run': 'Run',
  'runs.col.configuration': 'Configuration',
  'runs.col.started': 'Started',
  'runs.col.finished': 'Finished',
  'runs.col.duration': 'Duration',
  'runs.col.calls': 'Tool calls',
  'runs.col.ok': 'ok',
  'runs.col.failed': 'failed',
  'runs.col.cancelled': 'cancelled',
  'runs.page.next': 'Older runs',
  'runs.page.first': 'Newest runs',
  'runs.page.shown': { one: '{count} run on this page', other: '{count} runs on this page' },
  // the runs list: search, totals, refreshing (issue 32 item 3)
  'runs.filter.outcome.ok': 'Has ok calls',
  'runs.filter.configuration': 'Configuration',
  'runs.filter.server': 'MCP server',
  'runs.filter.tool': 'Tool',
  'runs.filter.title': 'Title contains',
  'runs.filter.from': 'Started from',
  'runs.filter.to': 'Started before',
  'runs.filter.exact': 'Configuration, server and tool: the exact name.',
  'runs.filter.timeZone': 'Times are in {zone}.',
  'runs.filter.errors': 'These filters cannot be applied:',
  'runs.filter.error.tooLong': { one: 'at most {count} character.', other: 'at most {count} characters.' },
  'runs.filter.error.tooShort': { one: 'at least {count} character.', other: 'at least {count} characters.' },
  'runs.filter.error.control': 'no control characters such as line breaks.',
  'runs.filter.error.time': '"{value}" is not a date and time such as 2026-11-30T08:00 from 1970 on.',
  'runs.filter.error.range': 'must be later than the start of the range.',
  'runs.filter.error.query': 'This list cannot be read: {message}',
  'runs.totals': '{runs} · {tokens}',
  'runs.totals.runs': { one: '{count} run', other: '{count} runs' },
  'runs.totals.tokens': { one: '{count} token', other: '{count} tokens' },
  'runs.totals.more': '{runs}+ runs · {tokens}+ tokens',
  'runs.col.tokens': 'Tokens',
  'runs.refresh.off': 'Runs on this page are running; live updates are off.',
  'runs.refresh.start': { one: 'Update live every {count} second', other: 'Update live every {count} seconds' },
  // a live page: updated in place by the live script (issue 40 item 3)
  'live.on': { one: 'Updates live every {count} second.', other: 'Updates live every {count} seconds.' },
  'live.paused': 'Live updates paused.',
  'live.failed': 'Could not reach the app; trying again shortly.',
  'live.pause': 'Pause updates',
  'live.resume': 'Resume updates',
  'live.over.run': 'The run has ended; the page shows how.',
  'live.over.runs': 'No run on this page is running any more; updates stopped.',
  'live.noScript': 'This page does not update by itself without JavaScript.',
  'live.reload': 'Reload',

  'runs.status.running': 'running',
  'runs.status.completed': 'completed',
  'runs.status.failed': 'failed',
  'runs.status.cancelled': 'cancelled',
  'runs.status.interrupted': 'interrupted',

  'runs.detail.title': 'Run {id}',
  'runs.detail.back': 'All runs',
  'runs.detail.summary': 'Summary',
  'runs.detail.actor': 'Started by',
  'runs.detail.steps': 'Steps',
  'runs.detail.reason': 'Reason',
  'runs.detail.cancelRequestedAt': 'Cancel requested',
  'runs.detail.cancelRequestBy': 'by {by} from {from}',
  'runs.detail.cancelRequestFrom': 'from {from}',
  'runs.detail.cancelFrom.app': 'the app',
  'runs.detail.cancelFrom.cli': 'the CLI',
  'runs.detail.cancelFrom.api': 'the API',
  'runs.detail.cancelFrom.signal': 'Ctrl+C',
  'runs.detail.cancelReason': 'Reason (optional)',
  'runs.detail.privacy':
    'Metadata first: prompts and answers are never shown here. A tool call recorded at privacy level redacted or full shows its error message and, folded, its arguments and result, redacted again; at metadata (the default) only their sizes.',
  'runs.detail.errorMessage': 'Error message',
  'runs.detail.content': 'Arguments and result (redacted)',
  'runs.detail.arguments': 'Arguments',
  'runs.detail.result': 'Result',
  'runs.detail.cancel': 'Cancel run',
  'runs.detail.cancelPending': 'Cancel requested; waiting for the run to stop.',
  'runs.detail.lateCancel': 'Cancel requested after the run finished: it did not change how the run ended.',
  'runs.detail.lateFinish': 'Late final status',
  'runs.detail.lateFinishNote': 'Its process reported this after the run had already ended: it did not change how the run ended.',
  'runs.detail.unstored': 'Steps not stored',
  'runs.detail.unstoredNote': {
    one: '{count} step of this run was not stored: the store refused it and it could not be spooled. The timeline misses it; the process reported it on its stderr.',
    other:
      '{count} steps of this run were not stored: the store refused them and they could not be spooled. The timeline misses them; the process reported each one on its stderr.',
  },
  'runs.detail.timeline': 'Timeline',
  'runs.detail.timelineEnd': 'Timeline, end of the table',
  'runs.detail.col.start': 'Start',
  'runs.detail.col.end': 'End',
  'runs.detail.col.source': 'Source',
  'runs.detail.col.kind': 'Kind',
  'runs.detail.col.round': 'Round',
  'runs.detail.col.duration': 'Duration',
  'runs.detail.col.outcome': 'Outcome',
  'runs.detail.col.details': 'Details',
  'runs.detail.outcome.ok': 'ok',
  'runs.detail.outcome.failed': 'failed',
  'runs.detail.outcome.cancelled': 'cancelled',
  'runs.detail.writeUnknown':
    'Cancelled write call: whether the server changed {target} before the call was torn down is unknown. Check it on the server.',
  'runs.detail.writeUnknownNoTarget':
    'Cancelled write call: whether the server changed anything before the call was torn down is unknown. Check it on the server.',
  'runs.detail.writeUnknownTimeout':
    'Timed-out write call: the server may have run it; whether it changed {target} is unknown. Check it on the server.',
  'runs.detail.writeUnknownTimeoutNoTarget':
    'Timed-out write call: the server may have run it; whether it changed anything is unknown. Check it on the server.',
  'runs.detail.writeUnknownUnanswered':
    'Write call without an answer: its request may have reached the server, which may have run it; whether it changed {target} is unknown. Check it on the server.',
  'runs.detail.writeUnknownUnansweredNoTarget':
    'Write call without an answer: its request may have reached the server, which may have run it; whether it changed anything is unknown. Check it on the server.',
  'runs.detail.mayHaveExecuted': 'may have executed',
  'runs.detail.mayHaveExecutedTitle':
    'The request of this write call may have reached the server, and no answer said what became of it: check the record before running it again.',
  'runs.detail.unreadable': 'This step could not be read (damaged payload).',
  'runs.detail.lifecycle.started': 'Run started',
  'runs.detail.lifecycle.cancel_requested': 'Cancel requested',
  'runs.detail.lifecycle.completed': 'Run completed',
  'runs.detail.lifecycle.failed': 'Run failed',
  'runs.detail.lifecycle.cancelled': 'Run cancelled',
  'runs.detail.lifecycle.interrupted': 'Run interrupted',
  'runs.detail.key.toolName': 'tool',
  'runs.detail.key.toolServer': 'server',
  'runs.detail.key.model': 'model',
  'runs.detail.key.finishReason': 'finish reason',
  'runs.detail.key.promptTokens': 'prompt tokens',
  'runs.detail.key.completionTokens': 'completion tokens',
  'runs.detail.key.costUsd': 'cost USD',
  'runs.detail.key.tokenBudget': 'token budget',
  'runs.detail.key.tokensUsed': 'tokens used',
  'runs.detail.key.contentLength': 'content length',
  'runs.detail.key.thinkingLength': 'thinking length',
  'runs.detail.key.messageCount': 'messages',
  'runs.detail.key.requestedToolCallCount': 'tool calls requested',
  'runs.detail.key.rawLength': 'raw length',
  'runs.detail.key.toolArgumentCount': 'arguments',
  'runs.detail.key.toolResultLength': 'result length',
  'runs.detail.key.toolArtifactCount': 'artifacts',
  'runs.detail.key.droppedSourceCount': 'sources dropped',
  'runs.detail.key.writeKind': 'write',
  'runs.detail.key.writeResource': 'resource',
  'runs.detail.key.writeId': 'record',
  'runs.detail.key.reason': 'reason',
  'runs.detail.key.failureCause': 'cause',
  'runs.detail.key.sends': 'times sent',
  'runs.detail.source.run': 'run',
  'runs.detail.source.agent': 'agent',
  'runs.detail.kind.lifecycle': 'lifecycle',
  'runs.detail.kind.request': 'incoming request',
  'runs.detail.kind.llm': 'LLM call',
  'runs.detail.kind.tool': 'tool call',
  'runs.detail.kind.tool_start': 'tool call sent',
  'runs.detail.kind.context': 'context budget',
  'runs.detail.kind.dropped': 'sources dropped',
  'runs.detail.kind.assembled': 'messages assembled',
  'runs.detail.callState.on_the_wire': 'on the wire',
  'runs.detail.callState.interrupted': 'interrupted',
  'runs.detail.callState.runningFor': 'running for {duration}',
  'runs.detail.callState.interruptedNote': 'The run ended while this call was on the wire; no outcome was recorded.',
  'runs.detail.waterfall.title': 'Waterfall',
  'runs.detail.waterfall.intro':
    'Each step of this page as a bar from its start to its end, {from} to {to}; steps that overlap in time are on lanes of their own. A bar leads to its row in the timeline below.',
  'runs.detail.waterfall.label': 'Steps on the time axis',
  'runs.detail.waterfall.legend': 'Colours',
  'runs.detail.waterfall.step': 'Step {step}',
  'runs.detail.waterfall.other': 'other step',
  'runs.detail.waterfall.skip': 'Skip to the timeline table',
  'runs.detail.waterfall.toolOn': '{tool} on {server}',
  'runs.detail.waterfall.markerAt': '{event} at {time}',
  'runs.detail.wire.title': 'Calls on the wire',
  'runs.detail.wire.intro': 'Sent and not answered yet: these are the calls the Cancel button stops.',
  'runs.detail.wire.none': 'No tool call is on the wire right now.',
  'runs.detail.wire.col.tool': 'Tool',
  'runs.detail.wire.col.server': 'Server',
  'runs.detail.wire.col.sent': 'Sent',
  'runs.detail.wire.col.running': 'Running for',
  'runs.reason.storeCancel':
    'cancelled by an operator from outside the run (the app’s Cancel button, or another process through the store)',
  'runs.reason.localCancel': 'cancelled by the operator in the process running the run',
  'runs.reason.cancelWhileRunning': 'cancel requested while the run was running (the run reported "{status}")',
  'runs.reason.cancelWhileRunningWith': 'cancel requested while the run was running (the run reported "{status}": {reason})',
  'runs.reason.noSignOfLife': 'no sign of life since {time}',
  'runs.reason.cancelNoSignOfLife': 'cancel requested; no sign of life since {time}',
  'runs.detail.page': 'Steps {from}–{to} of {total}',
  'runs.detail.page.next': 'Next steps',
  'runs.detail.page.previous': 'Previous steps',
  'runs.detail.page.first': 'First steps',
  'runs.zoom.nav': 'Zoom',
  'runs.zoom.zoomed': 'Zoomed to steps {from}–{to} of {total}: the waterfall is scaled to them.',
  'runs.zoom.in': 'Zoom in: steps {from}–{to}',
  'runs.zoom.out': 'Zoom out: steps {from}–{to}',
  'runs.zoom.reset': 'Reset zoom',
  'runs.zoom.error.param': 'Parameter “{param}”: {rule}',
  'runs.zoom.error.whole': '“{value}” is not a step number: a whole number from 0 (digits only).',
  'runs.zoom.error.fromBeyond': 'must be less than the run’s number of steps ({count}); it is {value}.',
  'runs.zoom.error.toBeyond': 'must be at most the run’s number of steps ({count}); it is {value}.',
  'runs.zoom.error.empty': 'must be greater than from ({from}); it is {value}.',
  'runs.zoom.error.tooWide': 'a zoom range takes at most {max} steps (to − from ≤ {max}); to is {value}.',
  'runs.detail.notFound': 'There is no run {id}.',
  'runs.detail.ambiguousId': {
    one: '{id} is the start of {count} run: {ids}. Give more of the id.',
    other: '{id} is the start of {count} runs: {ids}. Give more of the id.',
  },
  'runs.detail.cancelEnded': 'Run {id} had already ended: {status}, {time}. Nothing was cancelled.',
  'runs.detail.cancelEndedWith': 'Run {id} had already ended: {status}, {time} ({reason}). Nothing was cancelled.',

  'servers.title': 'MCP servers',
  'servers.intro':
    'Failure rate = failed ÷ (ok + failed), without cancellations and calls not charged to the server — refused arguments, a tool that is unknown, not found or not approved: those are our own doing (or the model’s) and never count against a server; they are shown beside it. Latency (p95) is over answered calls only. A server with fewer counted calls than the flaky rule needs shows “too few calls”.',
  'servers.empty': 'No tool calls recorded in this window.',
  'servers.window': 'Window',
  'servers.window.24h': 'Last 24 hours',
  'servers.window.7d': 'Last 7 days',
  'servers.window.all': 'All time',
  'servers.col.server': 'Server',
  'servers.col.calls': 'Calls',
  'servers.col.ok': 'ok',
  'servers.col.failed': 'failed',
  'servers.col.cancelled': 'cancelled',
  'servers.col.notCharged': 'not charged',
  'servers.col.failureRate': 'Failure rate',
  'servers.col.lastFailure': 'Last failure',
  'servers.col.p95': 'p95',
  'servers.col.health': 'Health',
  'servers.flaky': 'flaky',
  'servers.healthy': 'healthy',
  'servers.noAnswers': 'no answers',
  'servers.cancelledBeside': '{count} cancelled, not counted',
  'servers.notChargedBeside': {
    one: '{count} call not charged (invalid arguments, unknown or refused tools), not counted',
    other: '{count} calls not charged (invalid arguments, unknown or refused tools), not counted',
  },
  'servers.answeredBeside': { one: 'over {count} answered call', other: 'over {count} answered calls' },
  'servers.tooFew': 'too few calls',
  'servers.col.causes': 'Failures by cause',
  'failureCause.server_error': 'server error answer',
  'failureCause.invalid_arguments': 'invalid arguments',
  'failureCause.tool_not_found': 'tool not found on the server',
  'failureCause.unknown_tool': 'unknown tool (not sent)',
  'failureCause.malformed_arguments': 'malformed arguments (not sent)',
  'failureCause.not_approved': 'not approved (not sent)',
  'failureCause.mcp_refused_host': 'refused host',
  'failureCause.mcp_transport_failure': 'transport failure',
  'failureCause.mcp_http_status': 'HTTP status',
  'failureCause.mcp_malformed_response': 'malformed answer',
  'failureCause.mcp_json_rpc_error': 'JSON-RPC error',
  'failureCause.mcp_unsupported_content_type': 'unsupported content type',
  'failureCause.mcp_missing_credential': 'missing credential',
  'failureCause.mcp_deadline_exhausted': 'deadline used up',
  'failureCause.mcp_timeout': 'timeout',
  'failureCause.recorder_error': "the recorder's own error",
  'failure.why.httpStatus': 'answered {status}',
  'failure.why.jsonRpcCode': 'JSON-RPC {code}',
  'failure.why.serverIsError': 'answered isError',
  'failureCause.unknown': 'unknown',
  'servers.sort.asc': 'sort ascending',
  'servers.sort.desc': 'sort descending',

  // servers over time (issue 32 item 2): the charts and a server's page
  'servers.trends.24h':
    'The charts: failure rate and p95 per hour over the last 24 hours (whole UTC hours, the last one up to now); a gap is an hour without a figure.',
  'servers.trends.7d':
    'The charts: failure rate and p95 per day over the last 7 days (whole UTC days, the last one up to now); a gap is a day without a figure.',
  'servers.trends.all':
    'The charts: failure rate and p95 per day over the last 30 days (whole UTC days, the last one up to now); a gap is a day without a figure.',
  'trend.failureRate.hour': 'Failure rate per hour',
  'trend.failureRate.day': 'Failure rate per day',
  'trend.p95.hour': 'p95 per hour (answered calls)',
  'trend.p95.day': 'p95 per day (answered calls)',
  'trend.peakLatest': 'peak {peak} ({peakAt}), latest {latest} ({latestAt})',
  'trend.gaps.hour': { one: 'no figure in {gaps} of {count} hour', other: 'no figure in {gaps} of {count} hours' },
  'trend.gaps.day': { one: 'no figure on {gaps} of {count} day', other: 'no figure on {gaps} of {count} days' },
  'trend.empty.hour': { one: 'no figure in the last {count} hour', other: 'no figure in the last {count} hours' },
  'trend.empty.day': { one: 'no figure on the last {count} day', other: 'no figure on the last {count} days' },
  'trend.figures.hour': 'The figures per hour',
  'trend.figures.day': 'The figures per day',
  'trend.figures.from.hour': 'Hour from',
  'trend.figures.from.day': 'Day from',
  'server.title': 'MCP server {server}',
  'server.back': 'All MCP servers',
  'server.health': 'Health in this window',
  'server.noCalls': 'No calls to this server ended in this window.',
  'server.trends': 'Over time',
  'server.failing': 'Failed calls',
  'server.failing.intro': 'Newest first, in this window; each links to its step in its run.',
  'server.failing.none': 'No failed calls in this window.',
  'server.failing.unsupported':
    "This store cannot list a server's calls (it has no listToolCalls); the health and the charts above are complete.",
  'server.failing.col.time': 'Time',
  'server.failing.col.tool': 'Tool',
  'server.failing.col.cause': 'Cause',
  'server.failing.col.duration': 'Duration',
  'server.failing.col.run': 'Run',
  'server.failing.step': 'step {step}',
  'server.failing.shown': { one: '{count} failed call on this page', other: '{count} failed calls on this page' },
  'server.failing.first': 'Newest failed calls',
  'server.failing.next': 'Older failed calls',
  'server.notFound': 'No call to an MCP server "{server}" is recorded in this store.',
  'error.badServerId':
    'This address names no MCP server: a server id is non-empty text without NUL, at most 1024 characters, and neither "." nor "..".',

  'error.notFound': 'Not found',
  'error.notFound.text': 'There is nothing at this address.',
  'error.badRequest': 'Bad request',
  'error.badRunId': 'This address does not name a run: a run id is letters, digits, dots, dashes and underscores.',
  'error.forbidden': 'Forbidden',
  'error.runEnded': 'The run has ended',
  'error.crossOrigin': 'This request did not come from this app (cross-origin); nothing was changed.',
  'error.methodNotAllowed': 'Method not allowed',
  'error.server': 'Something went wrong',
  'error.server.text': 'An internal error stopped this page. The details are in the server log.',
  'common.none': '—',
  'common.never': 'never',

  // counts the command line says beside its own words (`1 run`, `2 runs`): never by hand
  'count.runs': { one: '{count} run', other: '{count} runs' },
  'count.demoRuns': { one: '{count} demo run', other: '{count} demo runs' },
  'count.steps': { one: '{count} step', other: '{count} steps' },
  'count.unstoredSteps': { one: '{count} unstored step', other: '{count} unstored steps' },
  'count.spans': { one: '{count} span', other: '{count} spans' },
  'count.batches': { one: '{count} batch', other: '{count} batches' },
  'count.finalStatuses': { one: '{count} final status', other: '{count} final statuses' },
  'count.lateFinalStatuses': { one: '{count} late final status', other: '{count} late final statuses' },
  'count.tornLines': { one: '{count} torn last line', other: '{count} torn last lines' },
  'count.tools': { one: '{count} tool', other: '{count} tools' },
  'count.alertsFiring': { one: '{count} alert firing', other: '{count} alerts firing' },
} as const satisfies Record<string, CatalogEntry>;

/**
 * A key of the message catalogs.
 *
 * @internal
 */
export type MessageKey = keyof typeof en;

/**
 * A full message catalog: every key of the English reference, no more and no fewer; a message
 * that names a count has plural forms in every language.
 *
 * @internal
 */
export type MessageCatalog = { readonly [K in MessageKey]: (typeof en)[K] extends string ? string : PluralForms };

/**
 * A key whose message names a count: its text is chosen by `Intl.PluralRules` from the `count`
 * parameter.
 *
 * @internal
 */
export type PluralKey = { [K in MessageKey]: (typeof en)[K] extends string ? never : K }[MessageKey];

/**
 * Tells whether a string is a key of the message catalogs.
 *
 * @internal
 */
export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}
