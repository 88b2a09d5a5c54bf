// The week of history the demo imports (issue 40 item 5), as a plan: which runs, when, which calls
// and how each ended — drawn from a seeded generator, so every demo plans the same runs with the
// same ids, only placed relative to its own "now".
import { seededRandom } from '@runledger/core/internal';
import { ToolFailureCause, type ToolFailureFacts } from '@runledger/core';

/** The words every imported history run carries in its configuration and title. @internal */
export const HISTORY_MARK = 'imported demo history';

/** The configurations of the history runs: the demo's own, marked as imported history. @internal */
export const HISTORY_CONFIGURATIONS = {
  support: `support-agent (${HISTORY_MARK})`,
  ops: `ops-agent (${HISTORY_MARK})`,
  report: `report-agent (${HISTORY_MARK})`,
} as const;

/** Who started the history runs. @internal */
export const HISTORY_ACTOR = `runledger demo (${HISTORY_MARK})`;

const HOUR_MS = 3_600_000;
/**
 * How far back the history reaches: 6 days 20 hours, so the 7-day window holds all its calls and
 * they fall on 7 (UTC) days — on 6 when the demo starts in the first hour or so of a UTC day, whose
 * bucket then holds the demo's live runs only.
 */
export const HISTORY_SPAN_MS = 164 * HOUR_MS;
/** The last history run starts this long before the demo. */
const HISTORY_END_MS = 20 * 60_000;
/** One run an hour (give or take 15 minutes). */
const SLOT_MS = 60 * 60_000;
/** The seed of the history: the same runs, ids and outcomes on every machine. */
const SEED = 0x5eed_4040;

/** One tool call of a history run. @internal */
export interface HistoryCall {
  readonly server: 'docs' | 'flaky' | 'slow';
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly outcome: 'ok' | 'failed' | 'cancelled';
  readonly durationMs: number;
  /** The answer's text (ok), the error's (failed) or why our side stopped waiting (cancelled). */
  readonly text: string;
  readonly cause?: ToolFailureCause;
  readonly facts?: ToolFailureFacts;
  readonly writes?: boolean;
}

/** One round of a history run: the model's think, then its calls. @internal */
export interface HistoryRound {
  readonly answer: string;
  readonly thinkMs: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly calls: readonly HistoryCall[];
}

/** How a history run ended. @internal */
export type HistoryEnding =
  | { readonly kind: 'completed' }
  | { readonly kind: 'failed'; readonly message: string }
  /** The operator cancelled it while its last call was on the wire, that long after the call began. */
  | { readonly kind: 'cancelled'; readonly reason: string };

/** One planned history run. @internal */
export interface HistoryRun {
  /** A fixed UUID: a second demo finds it and imports nothing twice. */
  readonly id: string;
  readonly configuration: string;
  readonly title: string;
  readonly question: string;
  /** How long before the demo's now it started, in ms. */
  readonly startsBefore: number;
  readonly rounds: readonly HistoryRound[];
  readonly ending: HistoryEnding;
}

type Random = () => number;
const between = (random: Random, low: number, high: number) => Math.round(low + random() * (high - low));
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** A UUID (version 4 layout) from the generator. */
function uuidOf(random: Random): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = '4';
  hex[16] = '89ab'[Math.floor(random() * 4)]!;
  const s = hex.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
}

/**
 * How often the flaky server fails at a point of the week (0: its start, 1: now): 5 % at first,
 * getting worse to more than half its calls three fifths in, then recovering.
 *
 * @internal
 */
export function flakyFailureRate(progress: number): number {
  return 0.05 + 0.65 * Math.exp(-(((progress - 0.6) / 0.18) ** 2));
}

const QUESTIONS = [
  ['How do I cancel a running agent run?', 'cancel a run', 'cancel.md'],
  ['What does an interrupted run mean?', 'interrupted runs', 'outcomes.md'],
  ['How do I install runledger?', 'install', 'install.md'],
  ['Why is a cancel not a failure?', 'cancelled versus failed', 'outcomes.md'],
] as const;
const SERVICES = ['api', 'web', 'worker', 'billing', 'search', 'checkout'] as const;
const REPORTS = ['daily-digest', 'weekly-usage', 'invoices', 'audit-log'] as const;

function docsQuestion(random: Random): Omit<HistoryRun, 'id' | 'startsBefore'> {
  const [question, query, page] = pick(random, QUESTIONS);
  // the steady server: a rare timeout, nothing else
  const docsCall = (tool: string, args: Record<string, unknown>, text: string): HistoryCall =>
    random() < 0.01
      ? {
          server: 'docs',
          tool,
          args,
          outcome: 'failed',
          durationMs: 30_000,
          text: 'no answer within 30 s',
          cause: ToolFailureCause.TIMEOUT,
        }
      : { server: 'docs', tool, args, outcome: 'ok', durationMs: between(random, 35, 140), text };
  const search = docsCall('search', { query }, `3 pages match "${query}"`);
  const read = docsCall('read_page', { page }, `# ${page}`);
  const failed = [search, read].find((call) => call.outcome === 'failed');
  return {
    configuration: HISTORY_CONFIGURATIONS.support,
    title: `${question} (${HISTORY_MARK})`,
    question,
    rounds: [
      {
        answer: 'Searching the docs.',
        thinkMs: between(random, 300, 900),
        promptTokens: between(random, 380, 460),
        completionTokens: 38,
        calls: [search],
      },
      {
        answer: `Reading ${page}.`,
        thinkMs: between(random, 300, 900),
        promptTokens: between(random, 600, 700),
        completionTokens: 41,
        calls: [read],
      },
    ],
    ending:
      failed === undefined
        ? { kind: 'completed' }
        : { kind: 'failed', message: `the docs server did not answer ${failed.tool} within 30 s` },
  };
}

function flakyCall(random: Random, service: string, progress: number): HistoryCall {
  const args = { service };
  if (random() >= flakyFailureRate(progress)) {
    return {
      server: 'flaky',
      tool: 'fetch_metrics',
      args,
      outcome: 'ok',
      durationMs: between(random, 120, 650),
      text: `${service}: p95 182 ms`,
    };
  }
  const kind = random();
  if (kind < 0.6) {
    return {
      server: 'flaky',
      tool: 'fetch_metrics',
      args,
      outcome: 'failed',
      durationMs: between(random, 60, 300),
      text: `metrics backend for ${service} answered 503`,
      cause: ToolFailureCause.HTTP_STATUS,
      facts: { httpStatus: 503 },
    };
  }
  if (kind < 0.85) {
    return {
      server: 'flaky',
      tool: 'fetch_metrics',
      args,
      outcome: 'failed',
      durationMs: 10_000,
      text: 'no answer within 10 s',
      cause: ToolFailureCause.TIMEOUT,
    };
  }
  return {
    server: 'flaky',
    tool: 'fetch_metrics',
    args,
    outcome: 'failed',
    durationMs: between(random, 80, 200),
    text: `metrics backend for ${service} is unavailable`,
    cause: ToolFailureCause.SERVER_ERROR,
    facts: { serverIsError: true },
  };
}

function metricsSweep(random: Random, progress: number): Omit<HistoryRun, 'id' | 'startsBefore'> {
  const count = between(random, 2, 4);
  const services = [...SERVICES].sort(() => random() - 0.5).slice(0, count);
  const rounds: HistoryRound[] = [];
  let ending: HistoryEnding = { kind: 'completed' };
  for (const service of services) {
    // a failed fetch is tried once more; two failures in a row fail the run
    const first = flakyCall(random, service, progress);
    const calls = first.outcome === 'ok' ? [first] : [first, flakyCall(random, service, progress)];
    rounds.push({
      answer: `Fetching metrics for ${service}.`,
      thinkMs: between(random, 250, 800),
      promptTokens: between(random, 380, 1200),
      completionTokens: 21 + service.length,
      calls,
    });
    if (calls.every((call) => call.outcome === 'failed')) {
      ending = { kind: 'failed', message: `metrics for ${service} unavailable: the monitoring backend failed twice` };
      break;
    }
  }
  return {
    configuration: HISTORY_CONFIGURATIONS.ops,
    title: `metrics sweep of ${services.slice(0, rounds.length).join(', ')} (${HISTORY_MARK})`,
    question: 'Summarise the services’ metrics.',
    rounds,
    ending,
  };
}

function reportExport(random: Random): Omit<HistoryRun, 'id' | 'startsBefore'> {
  const report = pick(random, REPORTS);
  const status: HistoryCall = {
    server: 'slow',
    tool: 'status',
    args: {},
    outcome: 'ok',
    durationMs: between(random, 20, 60),
    text: 'archive reachable',
  };
  const args = { report };
  const draw = random();
  // the slow server: long exports; the operator cancels some (never counted against the server)
  const exported: HistoryCall =
    draw < 0.2
      ? {
          server: 'slow',
          tool: 'export_report',
          args,
          writes: true,
          outcome: 'cancelled',
          durationMs: between(random, 3_000, 15_000),
          text: 'cancelled by the client',
        }
      : draw < 0.23
        ? {
            server: 'slow',
            tool: 'export_report',
            args,
            writes: true,
            outcome: 'failed',
            durationMs: 60_000,
            text: 'no answer within 60 s',
            cause: ToolFailureCause.TIMEOUT,
          }
        : {
            server: 'slow',
            tool: 'export_report',
            args,
            writes: true,
            outcome: 'ok',
            durationMs: between(random, 6_000, 42_000),
            text: `exported ${report}`,
          };
  const ending: HistoryEnding =
    exported.outcome === 'cancelled'
      ? { kind: 'cancelled', reason: `the operator cancelled the ${report} export: taking too long` }
      : exported.outcome === 'failed'
        ? { kind: 'failed', message: `the ${report} export did not finish within 60 s` }
        : { kind: 'completed' };
  return {
    configuration: HISTORY_CONFIGURATIONS.report,
    title: `${report} export (${HISTORY_MARK})`,
    question: `Export the ${report} report to the archive.`,
    rounds: [
      {
        answer: 'Checking the archive.',
        thinkMs: between(random, 200, 600),
        promptTokens: between(random, 300, 380),
        completionTokens: 30,
        calls: [status],
      },
      {
        answer: `Exporting ${report}.`,
        thinkMs: between(random, 200, 600),
        promptTokens: between(random, 600, 760),
        completionTokens: 44,
        calls: [exported],
      },
    ],
    ending,
  };
}

/**
 * The demo's week of history, oldest run first: one run an hour or so over
 * {@link HISTORY_SPAN_MS} — questions to the steady `docs` server, metrics sweeps on the `flaky`
 * one (getting worse, then recovering: {@link flakyFailureRate}), exports on the `slow` one that the
 * operator sometimes cancels — each marked {@link HISTORY_MARK}. The same on every call.
 *
 * @internal
 */
export function planDemoHistory(): readonly HistoryRun[] {
  const random = seededRandom(SEED);
  const runs: HistoryRun[] = [];
  for (let offset = HISTORY_SPAN_MS; offset >= HISTORY_END_MS + SLOT_MS / 4; offset -= SLOT_MS) {
    const id = uuidOf(random);
    const startsBefore = Math.max(HISTORY_END_MS, offset - between(random, 0, SLOT_MS / 4));
    const progress = 1 - startsBefore / HISTORY_SPAN_MS;
    const kind = random();
    const run = kind < 0.4 ? docsQuestion(random) : kind < 0.75 ? metricsSweep(random, progress) : reportExport(random);
    runs.push(Object.freeze({ id, startsBefore, ...run }));
  }
  return Object.freeze(runs);
}
