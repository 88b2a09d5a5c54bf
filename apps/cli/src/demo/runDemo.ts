import { SqliteRunStore } from '@runledger/store-sqlite';
import { counted } from '../commandKit/counted.js';
import { type ActiveRun, type RunStore, startRun } from '@runledger/trace';
import { stopWords } from '../commandKit/CliStop.js';
import { DemoAgent } from './DemoAgent.js';
import type { DemoTurn } from './demoModel.js';
import { type DemoServers, startDemoServers } from './DemoServers.js';
import { DEMO_PRIVACY, LIVE_RUN, type LiveDemoRun, startLiveDemoRun } from './LiveDemoRun.js';
import { waitForCallStarts } from './waitForCallStarts.js';
import { HISTORY_MARK } from './demoHistoryPlan.js';
import { type DemoHistoryResult, importDemoHistory } from './importDemoHistory.js';
import { osUser } from '../commandKit/osUser.js';

/** How the demo runs. @internal */
export interface DemoOptions {
  /** The SQLite file to record into; created when missing, added to when present. */
  readonly dbPath: string;
  /** Told about each step of the demo, one line at a time. */
  readonly progress?: (line: string) => void;
  /** Aborting it stops the demo: the run under way ends cancelled (its calls on the wire too), no other starts. */
  readonly signal?: AbortSignal;
  /** Demo servers already running (left running afterwards); by default the demo starts and ends its own. */
  readonly servers?: DemoServers;
  /**
   * After the scripted runs, start one more and leave it running with a slow call on the wire
   * (see {@link startLiveDemoRun}); the servers then stay up until `liveRun.stop()`. Default false.
   */
  readonly leaveRunning?: boolean;
  /**
   * Before the scripted runs, import the demo's week of history (runs marked "imported demo
   * history", see {@link importDemoHistory}) unless the file has it already. Default false.
   */
  readonly history?: boolean;
}

/** What the demo recorded. @internal */
export interface DemoResult {
  /** The open store (the caller closes it, e.g. after serving it). */
  readonly store: SqliteRunStore;
  /** The ids of the runs this demo recorded, in order. */
  readonly runIds: readonly string[];
  /** How many runs the file holds now, earlier demos included. */
  readonly totalRuns: number;
  /** The run left running (`leaveRunning`), or null; the caller stops it before closing the store. */
  readonly liveRun: LiveDemoRun | null;
  /** What importing the history did (`history`), or null when it was not asked for. */
  readonly history: DemoHistoryResult | null;
}

/** One scripted run: what it is and what its agent does. */
interface Script {
  readonly configuration: string;
  readonly title: string;
  readonly play: (
    agent: DemoAgent,
    servers: DemoServers,
    run: ActiveRun,
    store: RunStore,
    progress: (line: string) => void,
  ) => Promise<'complete' | Error>;
}

const metrics = (service: string, promptTokens: number): DemoTurn => ({
  answer: `Fetching metrics for ${service}.`,
  promptTokens,
  completionTokens: 21 + service.length,
  calls: [{ tool: 'mcp_flaky_fetch_metrics', input: { service } }],
});

/** How the last call of a run ended. */
function lastOutcome(run: ActiveRun): string | undefined {
  return run.trace.steps.filter((step) => step.kind === 'tool').at(-1)?.toolOutcome ?? undefined;
}

const SCRIPTS: readonly Script[] = [
  {
    configuration: 'support-agent',
    title: 'answer a question from the docs (docs server, reliable)',
    play: async (agent, servers) => {
      const question = 'How do I cancel a running agent run?';
      await agent.request(question);
      await agent.play(
        question,
        [...servers.tools.values()],
        [
          {
            answer: 'Searching the docs.',
            promptTokens: 412,
            completionTokens: 38,
            calls: [{ tool: 'mcp_docs_search', input: { query: 'cancel a run' } }],
          },
          {
            answer: 'Reading the two best pages.',
            promptTokens: 655,
            completionTokens: 41,
            calls: [
              { tool: 'mcp_docs_read_page', input: { page: 'cancel.md' } },
              { tool: 'mcp_docs_read_page', input: { page: 'outcomes.md' } },
            ],
          },
          { answer: 'Press "Cancel run" on the run page.', promptTokens: 1204, completionTokens: 96 },
        ],
      );
      return 'complete';
    },
  },
  {
    configuration: 'ops-agent',
    title: 'weekly metrics sweep (flaky server: every third call fails)',
    play: async (agent, servers) => {
      const question = 'Summarise last week’s service metrics.';
      await agent.request(question);
      await agent.play(
        question,
        [...servers.tools.values()],
        [
          ...['api', 'web', 'worker', 'billing', 'search'].map((service, index) => metrics(service, 380 + 190 * index)),
          { answer: 'Four of five services reported; the backend failed for one of them.', promptTokens: 1530, completionTokens: 210 },
        ],
      );
      return 'complete';
    },
  },
  {
    configuration: 'ops-agent',
    title: 'billing alert with retries (flaky server; the run fails)',
    play: async (agent, servers, run) => {
      const question = 'Is the billing service healthy in every region?';
      await agent.request(question);
      await agent.play(
        question,
        [...servers.tools.values()],
        [
          ...['billing-eu', 'billing-us', 'billing-apac', 'billing-latam'].map((service, index) => metrics(service, 402 + 150 * index)),
          { answer: 'No metrics for billing-latam.', promptTokens: 1010, completionTokens: 30 },
        ],
      );
      if (lastOutcome(run) === 'failed') return new Error('metrics for billing-latam unavailable: the monitoring backend failed');
      return 'complete';
    },
  },
  {
    configuration: 'report-agent',
    title: 'quarterly export, cancelled while a slow call is on the wire',
    play: async (agent, servers, run, store, progress) => {
      const question = 'Export the Q3 revenue report to the archive.';
      await agent.request(question);
      const loop = agent.play(
        question,
        [...servers.tools.values()],
        [
          {
            answer: 'Checking the archive, then exporting.',
            promptTokens: 365,
            completionTokens: 44,
            calls: [{ tool: 'mcp_slow_status', input: {} }],
          },
          {
            answer: 'Exporting and attaching finance metrics.',
            promptTokens: 702,
            completionTokens: 61,
            calls: [
              { tool: 'mcp_slow_export_report', input: { report: 'q3-revenue', seconds: 120 } },
              { tool: 'mcp_flaky_fetch_metrics', input: { service: 'finance', delayMs: 120_000 } },
            ],
          },
          { answer: 'Exported.', promptTokens: 900, completionTokens: 8 },
        ],
      );
      const ended = loop.then(
        () => 'complete' as const,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      // both calls of the second round on the wire (their starts recorded), then the operator acts
      await waitForCallStarts(run, 3, ended);
      await new Promise((resolve) => setTimeout(resolve, 400));
      // (unless a Ctrl+C has cancelled the run already)
      if (!run.cancelRequested) {
        progress(
          '      … mcp_slow_export_report is on the wire; an operator cancels the run (through the store, as the app’s button does)',
        );
        await store.requestCancel(run.id, undefined, { from: 'api', by: 'demo operator', reason: 'the export takes too long' });
      }
      // the loop ends with the run's own abort reason: run.fail() ends the run cancelled
      return ended;
    },
  },
  {
    configuration: 'support-agent',
    title: 'follow-up question (docs server)',
    play: async (agent, servers) => {
      const question = 'Why did my export show "cancelled" and not "failed"?';
      await agent.request(question);
      await agent.play(
        question,
        [...servers.tools.values()],
        [
          {
            answer: 'Searching the docs.',
            promptTokens: 398,
            completionTokens: 35,
            calls: [
              { tool: 'mcp_docs_search', input: { query: 'cancelled versus failed' } },
              { tool: 'mcp_docs_read_page', input: { page: 'outcomes.md' } },
            ],
          },
          { answer: 'A cancel is our own doing; it never counts against the server.', promptTokens: 990, completionTokens: 120 },
        ],
      );
      return 'complete';
    },
  },
  {
    configuration: 'report-agent',
    title: 'daily digest export (slow server, short call)',
    play: async (agent, servers) => {
      const question = 'Export today’s digest.';
      await agent.request(question);
      await agent.play(
        question,
        [...servers.tools.values()],
        [
          {
            answer: 'Exporting.',
            promptTokens: 301,
            completionTokens: 22,
            calls: [{ tool: 'mcp_slow_export_report', input: { report: 'daily-digest', seconds: 0.3 } }],
          },
          { answer: 'Done.', promptTokens: 420, completionTokens: 12 },
        ],
      );
      return 'complete';
    },
  },
];

/** The number of runs one demo records. @internal */
export const DEMO_RUN_COUNT = SCRIPTS.length;

/** The titles the scripted runs are recorded with, in order. @internal */
export const DEMO_TITLES: readonly string[] = SCRIPTS.map((script) => script.title);

async function countRuns(store: RunStore): Promise<number> {
  let total = 0;
  let cursor: string | null = null;
  do {
    const page = await store.listRuns({ limit: 200, cursor });
    total += page.runs.length;
    cursor = page.nextCursor;
  } while (cursor !== null);
  return total;
}

/**
 * The demo: starts the bundled MCP servers as child processes, plays the scripted agent runs
 * against them as Vercel AI SDK loops (`generateText` with the SDK's mock model, the tools and the
 * recording of `@runledger/ai-sdk`, one run cancelled while a slow call is on the wire), and
 * records everything into a SQLite file.
 *
 * @remarks
 * A second demo on the same file adds new runs (fresh ids); it never rewrites earlier ones.
 *
 * @throws Error from `runDemo` when the demo servers do not start or the store cannot be opened.
 * @internal
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const progress = options.progress ?? (() => undefined);
  const store = await SqliteRunStore.open({ path: options.dbPath, cancelPollMs: 50 });
  const runIds: string[] = [];
  let liveRun: LiveDemoRun | null = null;
  let history: DemoHistoryResult | null = null;
  try {
    progress(`runledger demo: recording into ${options.dbPath}`);
    if (options.history === true) {
      progress(`importing a week of demo history (its configurations and titles say "${HISTORY_MARK}") …`);
      history = await importDemoHistory(store, Date.now());
      progress(
        history.imported > 0
          ? `  imported ${counted('count.runs', history.imported)} of the last 7 days`
          : `  the demo history is in the file already (${counted('count.runs', history.runs)}): nothing imported`,
      );
    }
    progress('starting demo MCP servers docs, flaky, slow (child processes over stdio) …');
    const servers = options.servers ?? (await startDemoServers());
    try {
      progress(`  servers up, ${counted('count.tools', servers.tools.size)}: ${[...servers.tools.keys()].join(', ')}`);
      for (const [index, script] of SCRIPTS.entries()) {
        options.signal?.throwIfAborted();
        progress(`[${index + 1}/${SCRIPTS.length}] ${script.configuration}: ${script.title} …`);
        const run = await startRun(store, {
          configuration: script.configuration,
          title: script.title,
          actor: 'runledger demo',
          cancelPollMs: 50,
          // A newcomer sees why a call failed: the error message on its row ("… answered 503"),
          // its arguments and result folded, secrets masked (docs/app.md, What each privacy level shows).
          privacy: DEMO_PRIVACY,
        });
        runIds.push(run.id);
        const agent = new DemoAgent(run.trace, run.signal, { writes: (tool) => tool.name === 'mcp_slow_export_report' });
        // A Ctrl+C while the run is under way is our own stop: the run and its calls on the wire end
        // cancelled, never failed (the servers, in process groups of their own, never see it).
        const stopRun = () =>
          void run.cancel(`the demo was stopped (${stopWords(options.signal)})`, { from: 'signal', requestedBy: osUser() });
        options.signal?.addEventListener('abort', stopRun, { once: true });
        if (options.signal?.aborted === true) stopRun();
        let verdict: 'complete' | Error;
        try {
          verdict = await script.play(agent, servers, run, store, progress);
        } catch (error) {
          verdict = error instanceof Error ? error : new Error(String(error));
        } finally {
          options.signal?.removeEventListener('abort', stopRun);
        }
        // After a cancel (here, through the store), complete() and fail() end the run cancelled.
        if (verdict === 'complete') await run.complete();
        else await run.fail(verdict);
        const stored = await run.finished;
        const c = stored.outcomeCounts;
        progress(
          `      → ${stored.status}: ${counted('count.steps', stored.stepCount)}, tool calls ${c.ok} ok, ${c.failed} failed, ${c.cancelled} cancelled  (run ${stored.id})`,
        );
      }
      if (options.leaveRunning === true) {
        options.signal?.throwIfAborted();
        const closeServers = options.servers === undefined;
        // from here on, the live run closes the servers it was handed (they must outlive it)
        progress(`[live] ${LIVE_RUN.configuration}: ${LIVE_RUN.title} …`);
        liveRun = await startLiveDemoRun(store, servers, { closeServers });
        progress(`      → running: ${LIVE_RUN.tool} is on the wire for ten minutes, or until cancelled  (run ${liveRun.id})`);
      }
    } finally {
      if (options.servers === undefined && liveRun === null) await servers.close();
    }
    const totalRuns = await countRuns(store);
    return { store, runIds, totalRuns, liveRun, history };
  } catch (error) {
    await liveRun?.stop('the demo failed');
    await store.close();
    throw error;
  }
}
