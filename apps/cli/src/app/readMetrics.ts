// Reads what a scrape of `/metrics` reports from the store: server health over the window, its
// calls per tool (from the store's totals, or its listing of calls), the calls on the wire of the
// newest running runs and the runs by status.
import {
  canReadOpenCalls,
  canReadToolCallTotals,
  canSearchRuns,
  RUN_STATUSES,
  type RunStatus,
  type RunStore,
  type SearchingRunStore,
  type StoredToolCall,
  type ToolCallPage,
  type ToolCallTotals,
} from '@runledger/trace';
import { METRICS_SERVER_LIMIT, OTHER_SERVERS, serverMetrics } from '../viewModels/serverMetrics.js';
import { METRICS_TOOL_LIMIT, type ServerToolMetrics, toolMetrics, toolMetricsOfTotals } from '../viewModels/toolMetrics.js';
import { type ServerWindow, windowSince } from '../viewModels/serversQuery.js';
import type { MetricsPage } from '../views/metricsView.js';

/** How many running runs (the newest) a scrape reads the calls on the wire of: one page of the listing. */
const OPEN_CALL_RUNS = 200;

/** The label value of calls on the wire whose step names no server. */
const NO_SERVER = 'unknown';

async function openCallsByServer(store: RunStore): Promise<Map<string, number>> {
  const open = new Map<string, number>();
  if (!canReadOpenCalls(store)) return open;
  const running = await store.listRuns({ status: 'running', limit: OPEN_CALL_RUNS });
  const reads = await Promise.all(running.runs.map((run) => store.readOpenCalls(run.id)));
  for (const read of reads) {
    for (const start of read?.starts ?? []) {
      const server = start.toolServer ?? NO_SERVER;
      open.set(server, (open.get(server) ?? 0) + 1);
    }
  }
  return open;
}

/** Page size of the tool call listing a scrape reads a server's calls through. */
const TOOL_CALL_PAGE = 200;

/** The ended calls of one server in the window, every page of the store's listing. */
async function* callsOf(store: SearchingRunStore, server: string, since: number | undefined): AsyncGenerator<StoredToolCall> {
  let cursor: string | null = null;
  do {
    const page: ToolCallPage = await store.listToolCalls({
      server,
      limit: TOOL_CALL_PAGE,
      cursor,
      ...(since === undefined ? {} : { since }),
    });
    yield* page.calls;
    cursor = page.nextCursor;
  } while (cursor !== null);
}

/**
 * Every server's calls of the window summed per tool, when the store keeps them (a read that costs
 * the servers and tools, not the calls); null for a store without, whose calls are listed instead.
 */
async function toolTotals(store: RunStore, since: number | undefined): Promise<Map<string, ToolCallTotals[]> | null> {
  if (!canReadToolCallTotals(store)) return null;
  const byServer = new Map<string, ToolCallTotals[]>();
  for (const totals of await store.toolCallTotals(since === undefined ? {} : { since })) {
    const list = byServer.get(totals.server);
    if (list === undefined) byServer.set(totals.server, [totals]);
    else list.push(totals);
  }
  return byServer;
}

/** The per-tool rows of the named servers (the folded `other` row has none: its calls stay in the per-server series). */
async function toolsByServer(
  store: RunStore,
  servers: readonly string[],
  since: number | undefined,
  toolLimit: number,
  totals: Map<string, ToolCallTotals[]> | null,
) {
  if (totals !== null) return servers.map((server) => ({ server, ...toolMetricsOfTotals(server, totals.get(server) ?? [], toolLimit) }));
  if (!canSearchRuns(store)) return [];
  return Promise.all(
    servers.map(async (server): Promise<ServerToolMetrics & { server: string }> => {
      return { server, ...(await toolMetrics(server, callsOf(store, server, since), toolLimit)) };
    }),
  );
}

async function runsByStatus(store: RunStore): Promise<[RunStatus, number][]> {
  if (!canSearchRuns(store)) return [];
  return Promise.all(RUN_STATUSES.map(async (status): Promise<[RunStatus, number]> => [status, (await store.runTotals({ status })).runs]));
}

/**
 * What one scrape reports: the server health of the window (its busiest `serverLimit` servers by
 * name), per named server its busiest `toolLimit` tools (calls by outcome and cause, the answered
 * calls' duration histogram), the calls on the wire and the runs by status.
 *
 * @internal
 */
export async function readMetrics(
  store: RunStore,
  window: ServerWindow,
  now: number,
  serverLimit = METRICS_SERVER_LIMIT,
  toolLimit = METRICS_TOOL_LIMIT,
): Promise<MetricsPage> {
  const since = windowSince(window, now);
  const [health, open, runs, totals] = await Promise.all([
    store.serverHealth(since === undefined ? {} : { since }),
    openCallsByServer(store),
    runsByStatus(store),
    toolTotals(store, since),
  ]);
  const servers = serverMetrics(health, open, serverLimit);
  const named = servers.rows
    .filter((row) => row.server !== OTHER_SERVERS && row.ok + row.failed + row.cancelled > 0)
    .map((row) => row.server);
  const tools = await toolsByServer(store, named, since, toolLimit, totals);
  return { window, servers, runs, tools };
}
