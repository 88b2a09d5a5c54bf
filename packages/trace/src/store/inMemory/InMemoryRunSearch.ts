// Finding runs in an InMemoryRunStore (the sibling of the SQL stores' SqliteRunSearch and
// PostgresRunSearch): a page of the runs list, the totals of a listing's filters, one server's
// ended calls and runs by the start of their id, over the runs as they are kept.
import type { RunPage, RunQuery } from '../RunStore.js';
import { checkRunQuery, compareNewestFirst } from '../storeInputChecks.js';
import { checkRunIdPrefix, checkRunTotalsQuery } from '../RunSearch.js';
import type { RunTotals, RunTotalsQuery } from '../SearchingRunStore.js';
import { checkToolCallQuery, toolCallPageOf } from '../ToolCallListing.js';
import type { StoredToolCall, ToolCallPage, ToolCallQuery } from '../StoredToolCall.js';
import { compareCallsNewestFirst, type InMemoryState, isKept, type MutableRun, snapshot } from './inMemoryRuns.js';
import { pageOfRuns } from '../runPageOf.js';
import type { ToolCallTotals, ToolCallTotalsQuery } from '../ToolCallTotals.js';
import { checkToolCallTotalsQuery, ToolCallTotalsFold } from '../toolCallTotalsFold.js';

/**
 * The search reads of an InMemoryRunStore (the sibling of the SQL stores' SqliteRunSearch and
 * PostgresRunSearch): filters over the runs as they are kept, up to date as steps arrive.
 *
 * @internal
 */
export class InMemoryRunSearch {
  readonly #state: InMemoryState;
  /** Refuses every use once its store is closed. */
  readonly #open: () => void;

  constructor(state: InMemoryState, open: () => void) {
    this.#state = state;
    this.#open = open;
  }

  async listRuns(query?: RunQuery): Promise<RunPage> {
    this.#open();
    const q = checkRunQuery(query);
    const matching: MutableRun[] = [];
    for (const run of this.#state.runs.values()) {
      if (!isKept(run, q)) continue;
      if (q.after !== null && compareNewestFirst(run, q.after) <= 0) continue;
      matching.push(run);
    }
    matching.sort(compareNewestFirst);
    return pageOfRuns(matching, q.limit, snapshot);
  }

  /** How many runs a listing with these filters holds, and their tokens (see {@link SearchingRunStore.runTotals}). */
  async runTotals(query?: RunTotalsQuery): Promise<RunTotals> {
    this.#open();
    // checked as a listing's query; a cursor or limit given anyway is not applied (the type leaves them out)
    const { filters, upTo } = checkRunTotalsQuery(query);
    let runs = 0;
    let tokens = 0;
    for (const run of this.#state.runs.values()) {
      if (!isKept(run, filters)) continue;
      // one past upTo: more match than are counted
      if (runs === upTo) return { runs, tokens, complete: false };
      runs += 1;
      tokens += run.tokens;
    }
    return { runs, tokens, complete: true };
  }

  /** One server's ended tool calls, newest first (see {@link SearchingRunStore.listToolCalls}). */
  async listToolCalls(query: ToolCallQuery): Promise<ToolCallPage> {
    this.#open();
    const q = checkToolCallQuery(query);
    const rows: StoredToolCall[] = [];
    for (const run of this.#state.runs.values()) {
      for (const call of run.calls) {
        if (call.server !== q.server) continue;
        if (q.outcome !== null && call.outcome !== q.outcome) continue;
        if (q.since !== null && call.createdAt < q.since) continue;
        if (q.until !== null && call.createdAt >= q.until) continue;
        if (q.after !== null && compareCallsNewestFirst(call, q.after) <= 0) continue;
        rows.push(call as StoredToolCall);
      }
    }
    rows.sort(compareCallsNewestFirst);
    return toolCallPageOf(rows.slice(0, q.limit + 1), q.limit);
  }

  /** The ended calls of a window summed per server and tool (see {@link ToolTotalsRunStore.toolCallTotals}); the reference: it folds every call. */
  async toolCallTotals(query?: ToolCallTotalsQuery): Promise<readonly ToolCallTotals[]> {
    this.#open();
    const q = checkToolCallTotalsQuery(query);
    const fold = new ToolCallTotalsFold();
    for (const run of this.#state.runs.values()) {
      for (const call of run.calls) {
        if (call.server === null) continue;
        if (q.since !== null && call.createdAt < q.since) continue;
        if (q.until !== null && call.createdAt >= q.until) continue;
        fold.addCall(call.server, call.tool, call.outcome, call.cause, call.durationMs);
      }
    }
    return fold.totals();
  }

  /** The ids of the runs whose id starts with `prefix` (see {@link SearchingRunStore.findRunIdsByPrefix}). */
  async findRunIdsByPrefix(prefix: string, limit?: number): Promise<readonly string[]> {
    this.#open();
    const q = checkRunIdPrefix(prefix, limit);
    if (q.prefix === null) return [];
    const ids: string[] = [];
    for (const id of this.#state.runs.keys()) if (id.startsWith(q.prefix)) ids.push(id);
    return ids.sort().slice(0, q.limit);
  }
}
