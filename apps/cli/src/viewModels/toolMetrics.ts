/**
 * What `/metrics` says per MCP server and tool: the ended calls by outcome and by failure cause,
 * and a histogram of the answered calls' durations. The label values stay bounded: per server the
 * busiest {@link METRICS_TOOL_LIMIT} tools by name, the rest summed into one `tool="other"` row.
 */
import {
  isAnsweredCall,
  isCountedCall,
  type StoredToolCall,
  TOOL_DURATION_BUCKETS_SECONDS,
  type ToolCallTotals,
  toolDurationBucket,
} from '@runledger/trace';
import type { ToolFailureCause } from '@runledger/core';

/** The label value the tools beyond the limit (and a tool named `other`) are folded into. @internal */
export const OTHER_TOOLS = 'other';

/** The label value of calls whose step recorded no tool name. @internal */
export const NO_TOOL = 'unknown';

/** How many tools of one server `/metrics` names at most; the rest are {@link OTHER_TOOLS}. @internal */
export const METRICS_TOOL_LIMIT = 20;

/** The upper bounds (seconds) of the answered-call duration histogram's buckets (trace's, which stores sum calls by); `+Inf` follows. @internal */
export const DURATION_BUCKETS_SECONDS: readonly number[] = TOOL_DURATION_BUCKETS_SECONDS;

/** One server and tool's (or its folded tools') figures as `/metrics` writes them. @internal */
export interface ToolMetricsRow {
  readonly server: string;
  /** The tool's name, {@link NO_TOOL} or {@link OTHER_TOOLS}. */
  readonly tool: string;
  readonly ok: number;
  readonly failed: number;
  readonly cancelled: number;
  /** Failed calls by cause, and whether the cause counts against the server. */
  readonly failureCauses: readonly { readonly cause: string; readonly charged: boolean; readonly calls: number }[];
  /** Answered calls per bucket of {@link DURATION_BUCKETS_SECONDS} (not cumulative), then the ones above the last bound. */
  readonly buckets: readonly number[];
  /** The sum of the answered calls' durations in seconds. */
  readonly answeredSeconds: number;
}

/** The per-tool rows of one server, and how many of its tools were folded into {@link OTHER_TOOLS}. @internal */
export interface ServerToolMetrics {
  readonly rows: readonly ToolMetricsRow[];
  readonly folded: number;
}

interface Tally {
  ok: number;
  failed: number;
  cancelled: number;
  causes: Map<string, number>;
  buckets: number[];
  seconds: number;
}

const newTally = (): Tally => ({
  ok: 0,
  failed: 0,
  cancelled: 0,
  causes: new Map(),
  buckets: DURATION_BUCKETS_SECONDS.map(() => 0).concat(0),
  seconds: 0,
});

function add(tally: Tally, call: StoredToolCall): void {
  tally[call.outcome] += 1;
  const cause = call.outcome === 'failed' ? (call.cause as ToolFailureCause | null) : null;
  if (call.outcome === 'failed') {
    const key = call.cause ?? 'unknown';
    tally.causes.set(key, (tally.causes.get(key) ?? 0) + 1);
  }
  if (isAnsweredCall(call.outcome, cause)) {
    tally.buckets[toolDurationBucket(call.durationMs)]! += 1;
    tally.seconds += call.durationMs / 1000;
  }
}

function merge(into: Tally, from: Tally): void {
  into.ok += from.ok;
  into.failed += from.failed;
  into.cancelled += from.cancelled;
  for (const [cause, calls] of from.causes) into.causes.set(cause, (into.causes.get(cause) ?? 0) + calls);
  from.buckets.forEach((n, i) => (into.buckets[i]! += n));
  into.seconds += from.seconds;
}

function rowOf(server: string, tool: string, tally: Tally): ToolMetricsRow {
  return {
    server,
    tool,
    ok: tally.ok,
    failed: tally.failed,
    cancelled: tally.cancelled,
    failureCauses: [...tally.causes]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([cause, calls]) => ({
        cause,
        charged: isCountedCall('failed', cause === 'unknown' ? null : (cause as ToolFailureCause)),
        calls,
      })),
    buckets: tally.buckets,
    answeredSeconds: tally.seconds,
  };
}

/**
 * One server's per-tool rows from its ended calls (read once, as they come): the `limit` tools with the most calls (then by
 * name) by name, every other one (a tool named `other` included) summed into one
 * {@link OTHER_TOOLS} row.
 *
 * @internal
 */
export async function toolMetrics(
  server: string,
  calls: AsyncIterable<StoredToolCall> | Iterable<StoredToolCall>,
  limit = METRICS_TOOL_LIMIT,
): Promise<ServerToolMetrics> {
  const tallies = new Map<string, Tally>();
  // one tally per tool, the calls read as they come: memory grows with the tools, not the calls
  for await (const call of calls) add(tallyOf(tallies, call.tool), call);
  return rank(server, tallies, limit);
}

/**
 * One server's per-tool rows, as {@link toolMetrics} makes them from its calls, from the totals a
 * store summed per tool (`ToolTotalsRunStore.toolCallTotals`, the server's entries).
 *
 * @internal
 */
export function toolMetricsOfTotals(server: string, totals: readonly ToolCallTotals[], limit = METRICS_TOOL_LIMIT): ServerToolMetrics {
  const tallies = new Map<string, Tally>();
  for (const t of totals) {
    const tally = tallyOf(tallies, t.tool);
    tally.ok += t.ok;
    tally.failed += t.failed;
    tally.cancelled += t.cancelled;
    for (const { cause, calls } of t.failureCauses) tally.causes.set(cause, (tally.causes.get(cause) ?? 0) + calls);
    t.answeredBuckets.forEach((n, i) => (tally.buckets[i]! += n));
    tally.seconds += t.answeredMs / 1000;
  }
  return rank(server, tallies, limit);
}

/** The tally of a tool (a call without a tool name counts as {@link NO_TOOL}). */
function tallyOf(tallies: Map<string, Tally>, tool: string | null): Tally {
  const name = tool ?? NO_TOOL;
  let tally = tallies.get(name);
  if (tally === undefined) tallies.set(name, (tally = newTally()));
  return tally;
}

/** The rows of the `limit` busiest tools (then by name), the rest folded into {@link OTHER_TOOLS}. */
function rank(server: string, tallies: ReadonlyMap<string, Tally>, limit: number): ServerToolMetrics {
  const total = (t: Tally) => t.ok + t.failed + t.cancelled;
  const ranked = [...tallies].sort(([a, x], [b, y]) => total(y) - total(x) || (a < b ? -1 : a > b ? 1 : 0));
  const kept = ranked.filter(([tool]) => tool !== OTHER_TOOLS).slice(0, Math.max(0, limit));
  const keptTools = new Set(kept.map(([tool]) => tool));
  const rest = ranked.filter(([tool]) => !keptTools.has(tool));
  const rows = kept.map(([tool, tally]) => rowOf(server, tool, tally));
  if (rest.length === 0) return { rows, folded: 0 };
  const folded = newTally();
  for (const [, tally] of rest) merge(folded, tally);
  return { rows: [...rows, rowOf(server, OTHER_TOOLS, folded)], folded: rest.length };
}
