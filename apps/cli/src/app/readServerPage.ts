import { canSearchRuns, type RunStore, type ToolCallPage } from '@runledger/trace';
import type { ServerPage } from '../views/serverView.js';
import type { HealthBucketCache } from './HealthBucketCache.js';
import { serverPath } from '../viewModels/serverPath.js';
import { type ServerWindow, windowSince } from '../viewModels/serversQuery.js';
import { readServerTrends } from '../viewModels/serverTrends.js';

/** Failed calls per page of a server's page. @internal */
export const FAILING_CALLS_PAGE_SIZE = 50;

/**
 * Reads what a server's page shows, all at once: its health in the window, the trends, and a page
 * of its failed calls in the window (when the store can list calls: {@link canSearchRuns}).
 * Null when the store knows no ended call of that server at all (in the window or before it).
 * `cache` keeps the closed buckets of the charts (see {@link readServerTrends}).
 *
 * @throws RunStoreError (`invalid_input`) for a cursor that is not one of `listToolCalls`.
 * @internal
 */
export async function readServerPage(
  store: RunStore,
  server: string,
  window: ServerWindow,
  cursor: string | null,
  now: number,
  cache?: HealthBucketCache,
): Promise<ServerPage | null> {
  const since = windowSince(window, now);
  const listing: Promise<ToolCallPage | null> = canSearchRuns(store)
    ? store.listToolCalls({
        server,
        outcome: 'failed',
        cursor,
        limit: FAILING_CALLS_PAGE_SIZE,
        ...(since === undefined ? {} : { since }),
      })
    : Promise.resolve(null);
  const [rows, trends, failing] = await Promise.all([
    store.serverHealth(since === undefined ? {} : { since }),
    readServerTrends(store, window, now, cache),
    listing,
  ]);
  const health = rows.find((row) => row.server === server) ?? null;
  if (health === null && !trends.byServer.has(server)) {
    // no call in the window: a server the store knows from before it still has a page
    const known = since !== undefined && (await store.serverHealth()).some((row) => row.server === server);
    if (!known) return null;
  }
  return { server, path: serverPath(server) ?? '/servers', window, health, trends, failing, cursor, now };
}
