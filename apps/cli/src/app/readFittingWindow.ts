import type { RunStore, ServerHealth } from '@runledger/trace';
import { fittingWindow, SERVER_WINDOWS, type ServerWindow, windowSince } from '../viewModels/serversQuery.js';

/** A window the servers pages chose to fit the calls there are, and the health rows read for it. @internal */
export interface FittedWindow {
  readonly window: ServerWindow;
  /** Every server's health in that window. */
  readonly rows: readonly ServerHealth[];
}

/**
 * Reads every window's server health at once and picks the shortest window that holds every call
 * ({@link fittingWindow}): of every server, or of `server` alone when given (a server's page).
 *
 * @internal
 */
export async function readFittingWindow(store: RunStore, now: number, server?: string): Promise<FittedWindow> {
  const reads = await Promise.all(
    SERVER_WINDOWS.map((window) => {
      const since = windowSince(window, now);
      return store.serverHealth(since === undefined ? {} : { since });
    }),
  );
  const calls = (rows: readonly ServerHealth[]) =>
    rows.filter((row) => server === undefined || row.server === server).reduce((sum, row) => sum + row.calls, 0);
  const counted = Object.fromEntries(SERVER_WINDOWS.map((window, i) => [window, calls(reads[i]!)])) as Record<ServerWindow, number>;
  const window = fittingWindow(counted);
  return { window, rows: reads[SERVER_WINDOWS.indexOf(window)]! };
}
