import { canSearchRuns, type RunStore } from '@runledger/trace';
import { distinctNames, type FilterSuggestions, MAX_SUGGESTIONS } from '../viewModels/filterSuggestions.js';

/** How long suggestions are reused, in ms: a name new to the store shows within half a minute. */
const TTL_MS = 30_000;
/** The servers whose tools are suggested: the busiest this many (one bounded read each). */
const MAX_TOOL_SERVERS = 20;

/**
 * Reads what the filter boxes suggest with what every store offers, each read bounded: the
 * configurations of the {@link MAX_SUGGESTIONS} most recent runs (`listRuns`), the servers with a
 * call (`serverHealth`, all time) and, from a store that can search, the tools of the latest
 * {@link MAX_SUGGESTIONS} calls of each of the busiest {@link MAX_TOOL_SERVERS} servers (`listToolCalls`).
 *
 * @internal
 */
export async function readFilterSuggestions(store: RunStore): Promise<FilterSuggestions> {
  const [page, health] = await Promise.all([store.listRuns({ limit: MAX_SUGGESTIONS }), store.serverHealth()]);
  const busiest = [...health].sort((a, b) => b.calls - a.calls || a.server.localeCompare(b.server));
  const tools = canSearchRuns(store)
    ? await Promise.all(
        busiest
          .slice(0, MAX_TOOL_SERVERS)
          .map(async (row) => (await store.listToolCalls({ server: row.server, limit: MAX_SUGGESTIONS })).calls),
      )
    : [];
  return {
    configuration: distinctNames(page.runs.map((run) => run.configuration)),
    server: distinctNames(busiest.map((row) => row.server)),
    tool: distinctNames(tools.flat().map((call) => call.tool)).sort(),
  };
}

/**
 * The filter suggestions, read at most every half a minute ({@link TTL_MS}): the runs list (which
 * a live page reloads while a run runs) costs its own reads, not these. A failed read is not kept.
 *
 * @internal
 */
export class FilterSuggestionCache {
  #entry: { readonly at: number; readonly value: Promise<FilterSuggestions> } | null = null;

  read(store: RunStore, now: number): Promise<FilterSuggestions> {
    const hit = this.#entry;
    if (hit !== null && now - hit.at < TTL_MS && now >= hit.at) return hit.value;
    const value = readFilterSuggestions(store);
    const entry = { at: now, value };
    this.#entry = entry;
    value.catch(() => {
      if (this.#entry === entry) this.#entry = null;
    });
    return value;
  }
}
