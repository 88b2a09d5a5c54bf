import { SqliteRunStore } from '@runledger/store-sqlite';
import { type ActiveRun, type RunStore, startRun } from '@runledger/trace';
import { DemoAgent } from './DemoAgent.js';
import { type DemoServers, startDemoServers } from './DemoServers.js';

/** How the demo runs. @internal */
export interface DemoOptions {
  /** The SQLite file to record into; created when missing, added to when present. */
  readonly dbPath: string;
  /** Told about each step of the demo, one line at a time. */
  readonly progress?: (line: string) => void;
  /** Aborting it stops the demo between runs. */
  readonly signal?: AbortSignal;
  /** Demo servers already running (left running afterwards); by default the demo starts and ends its own. */
  readonly servers?: DemoServers;
}

/** What the demo recorded. @internal */
export interface DemoResult {
  /** The open store (the caller closes it, e.g. after serving it). */
  readonly store: SqliteRunStore;
  /** The ids of the runs this demo recorded, in order. */
  readonly runIds: readonly string[];
  /** How many runs the file holds now, earlier demos included. */
  readonly totalRuns: number;
}

/** One scripted run: what it is and what its agent does. */
interface Script {
  readonly configuration: string;
  readonly title: string;
  readonly play: (agent: DemoAgent, servers: DemoServers, run: ActiveRun, store: RunStore, progress: (line: string) => void) => Promise<'complete' | Error>;
}

const SCRIPTS: readonly Script[] = [
  {
    configuration: 'support-agent',
    title: 'answer a question from the docs (docs server, reliable)',
    play: async (agent, servers) => {
      await agent.request('How do I cancel a running agent run?');
      await agent.think('Searching the docs.', { promptTokens: 412, completionTokens: 38, tools: ['mcp_docs_search'] });
      await agent.call(servers.tool('mcp_docs_search'), { query: 'cancel a run' });
      await agent.think('Reading the two best pages.', { promptTokens: 655, completionTokens: 41, tools: ['mcp_docs_read_page'] });
      await agent.call(servers.tool('mcp_docs_read_page'), { page: 'cancel.md' });
      await agent.call(servers.tool('mcp_docs_read_page'), { page: 'outcomes.md' });
      await agent.think('Press "Cancel run" on the run page.', { promptTokens: 1204, completionTokens: 96 });
      return 'complete';
    },
  },
  {
    configuration: 'ops-agent',
    title: 'weekly metrics sweep (flaky server: every third call fails)',
    play: async (agent, servers) => {
      await agent.request('Summarise last week’s service metrics.');
      await agent.think('Fetching metrics for five services.', { promptTokens: 380, completionTokens: 52, tools: ['mcp_flaky_fetch_metrics'] });
      for (const service of ['api', 'web', 'worker', 'billing', 'search']) {
        await agent.call(servers.tool('mcp_flaky_fetch_metrics'), { service });
      }
      await agent.think('Four of five services reported; billing is missing.', { promptTokens: 1530, completionTokens: 210 });
      return 'complete';
    },
  },
  {
    configuration: 'ops-agent',
    title: 'billing alert with retries (flaky server; the run fails)',
    play: async (agent, servers) => {
      await agent.request('Is the billing service healthy in every region?');
      await agent.think('Checking every billing region.', { promptTokens: 402, completionTokens: 47, tools: ['mcp_flaky_fetch_metrics'] });
      let last = null as Awaited<ReturnType<DemoAgent['call']>> | null;
      for (const service of ['billing-eu', 'billing-us', 'billing-apac', 'billing-latam']) {
        last = await agent.call(servers.tool('mcp_flaky_fetch_metrics'), { service });
      }
      if (last?.outcome === 'failed') return new Error('metrics for billing-latam unavailable: the monitoring backend failed');
      return 'complete';
    },
  },
  {
    configuration: 'report-agent',
    title: 'quarterly export, cancelled while a slow call is on the wire',
    play: async (agent, servers, run, store, progress) => {
      await agent.request('Export the Q3 revenue report to the archive.');
      await agent.think('Checking the archive, then exporting.', { promptTokens: 365, completionTokens: 44, tools: ['mcp_slow_status'] });
      await agent.call(servers.tool('mcp_slow_status'), {});
      await agent.think('Exporting and attaching finance metrics.', {
        promptTokens: 702,
        completionTokens: 61,
        tools: ['mcp_slow_export_report', 'mcp_flaky_fetch_metrics'],
      });
      const exportCall = agent.call(servers.tool('mcp_slow_export_report'), { report: 'q3-revenue', seconds: 120 }, { writes: true });
      const metricsCall = agent.call(servers.tool('mcp_flaky_fetch_metrics'), { service: 'finance', delayMs: 120_000 });
      await new Promise((resolve) => setTimeout(resolve, 400));
      progress('      … mcp_slow_export_report is on the wire; an operator cancels the run (through the store, as the app’s button does)');
      await store.requestCancel(run.id);
      await Promise.all([exportCall, metricsCall]);
      return 'complete';
    },
  },
  {
    configuration: 'support-agent',
    title: 'follow-up question (docs server)',
    play: async (agent, servers) => {
      await agent.request('Why did my export show "cancelled" and not "failed"?');
      await agent.think('Searching the docs.', { promptTokens: 398, completionTokens: 35, tools: ['mcp_docs_search'] });
      await agent.call(servers.tool('mcp_docs_search'), { query: 'cancelled versus failed' });
      await agent.call(servers.tool('mcp_docs_read_page'), { page: 'outcomes.md' });
      await agent.think('A cancel is our own doing; it never counts against the server.', { promptTokens: 990, completionTokens: 120 });
      return 'complete';
    },
  },
  {
    configuration: 'report-agent',
    title: 'daily digest export (slow server, short call)',
    play: async (agent, servers) => {
      await agent.request('Export today’s digest.');
      await agent.think('Exporting.', { promptTokens: 301, completionTokens: 22, tools: ['mcp_slow_export_report'] });
      await agent.call(servers.tool('mcp_slow_export_report'), { report: 'daily-digest', seconds: 0.3 }, { writes: true });
      await agent.think('Done.', { promptTokens: 420, completionTokens: 12 });
      return 'complete';
    },
  },
];

/** The number of runs one demo records. @internal */
export const DEMO_RUN_COUNT = SCRIPTS.length;

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
 * against them through McpTool and startRun (one cancelled while a slow call is on the wire), and
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
  try {
    progress(`runledger demo: recording into ${options.dbPath}`);
    progress('starting demo MCP servers docs, flaky, slow (child processes over stdio) …');
    const servers = options.servers ?? (await startDemoServers());
    try {
      progress(`  servers up, ${servers.tools.size} tools: ${[...servers.tools.keys()].join(', ')}`);
      for (const [index, script] of SCRIPTS.entries()) {
        options.signal?.throwIfAborted();
        progress(`[${index + 1}/${SCRIPTS.length}] ${script.configuration}: ${script.title} …`);
        const run = await startRun(store, { configuration: script.configuration, actor: 'runledger demo', cancelPollMs: 50 });
        runIds.push(run.id);
        const agent = new DemoAgent(run.trace, run.signal);
        let verdict: 'complete' | Error;
        try {
          verdict = await script.play(agent, servers, run, store, progress);
        } catch (error) {
          verdict = error instanceof Error ? error : new Error(String(error));
        }
        // After a cancel (here, through the store), complete() and fail() end the run cancelled.
        if (verdict === 'complete') await run.complete();
        else await run.fail(verdict);
        const stored = await run.finished;
        const c = stored.outcomeCounts;
        progress(`      → ${stored.status}: ${stored.stepCount} steps, tool calls ${c.ok} ok, ${c.failed} failed, ${c.cancelled} cancelled  (run ${stored.id})`);
      }
    } finally {
      if (options.servers === undefined) await servers.close();
    }
    const totalRuns = await countRuns(store);
    return { store, runIds, totalRuns };
  } catch (error) {
    await store.close();
    throw error;
  }
}
