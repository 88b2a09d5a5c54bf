// Reads what a scrape of `/metrics` reports from the store: server health over the window, the
// calls on the wire of the newest running runs and the runs by status.
import { canReadOpenCalls, canSearchRuns, RUN_STATUSES, type RunStatus, type RunStore } from '@runledger/trace';
import { METRICS_SERVER_LIMIT, serverMetrics } from '../viewModels/serverMetrics.js';
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

async function runsByStatus(store: RunStore): Promise<[RunStatus, number][]> {
  if (!canSearchRuns(store)) return [];
  return Promise.all(RUN_STATUSES.map(async (status): Promise<[RunStatus, number]> => [status, (await store.runTotals({ status })).runs]));
}

/**
 * What one scrape reports: the server health of the window (its busiest `serverLimit` servers by
 * name), the calls on the wire and the runs by status.
 *
 * @internal
 */
export async function readMetrics(
  store: RunStore,
  window: ServerWindow,
  now: number,
  serverLimit = METRICS_SERVER_LIMIT,
): Promise<MetricsPage> {
  const since = windowSince(window, now);
  const [health, open, runs] = await Promise.all([
    store.serverHealth(since === undefined ? {} : { since }),
    openCallsByServer(store),
    runsByStatus(store),
  ]);
  return { window, servers: serverMetrics(health, open, serverLimit), runs };
}
