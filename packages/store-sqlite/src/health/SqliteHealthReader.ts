import type { ToolOutcome } from '@runledger/core';
import type Database from 'better-sqlite3';
import type { SqliteHealthPending } from './SqliteHealthPending.js';
import type { ServerHealth, ServerHealthQuery } from '@runledger/trace';
import {
  addToTally,
  DURATION_HISTOGRAM_SLOTS,
  durationSlot,
  healthOf,
  histogramPercentile,
  newServerHealthTally,
  type NormalizedHealthQuery,
  planRollupWindow,
  rollupBucketSpan,
  serverHealth,
  type ServerHealthTally,
  toolCallOf,
} from '@runledger/trace/store';

/**
 * Below this many tool calls in a window, health is computed from the steps themselves and the
 * percentiles are exact; above it they come from the rollup histogram.
 *
 * @internal
 */
export const EXACT_HEALTH_MAX_CALLS = 2000;

/** One past the latest time a store keeps (8.64e15, RunStoreInput's time rule): an open window holds every step. */
const FAR_FUTURE = 8.64e15 + 1;

/** A server's counts (kept by trace's tally) and the histogram of its answered calls. */
interface Tally {
  counts: ServerHealthTally;
  answered: number;
  min: number;
  max: number;
  histogram: number[];
}

const newTally = (): Tally => ({
  counts: newServerHealthTally(),
  answered: 0,
  min: Number.POSITIVE_INFINITY,
  max: Number.NEGATIVE_INFINITY,
  histogram: new Array<number>(DURATION_HISTOGRAM_SLOTS).fill(0),
});

/** A step row of an edge or of the exact path: server, outcome, duration, time, cause. */
type StepRow = [string, ToolOutcome, number, number, string | null];

/** A health read's answer, and how many calls it found pending (not yet in the rollup). */
export interface HealthRead {
  readonly health: ServerHealth[];
  readonly pending: number;
}

/**
 * Reads server health over a window from the rollup: one range scan of whole buckets per range of
 * the window's plan (at most two per level), every server of those buckets at once (the rollup is keyed
 * `(level, bucket_start, server)`, so servers that were not called in the window cost nothing),
 * the calls pending for the rollup that fall in those buckets (SqliteHealthPending), plus the
 * steps of the two sub-minute edges of the window. Run it in one read transaction: the rollup and
 * the pending calls are then one snapshot, in which each call is in exactly one of them.
 *
 * @internal
 */
export class SqliteHealthReader {
  readonly #range: Database.Statement;
  readonly #causes: Database.Statement;
  readonly #steps: Database.Statement;
  /** Windows of at most this many calls are computed exactly from the steps; tests lower it. */
  exactMaxCalls: number = EXACT_HEALTH_MAX_CALLS;
  readonly #pending: SqliteHealthPending;

  constructor(db: Database.Database, pending: SqliteHealthPending) {
    this.#pending = pending;
    const sums = Array.from({ length: DURATION_HISTOGRAM_SLOTS }, (_, k) => `sum(h${k})`).join(', ');
    this.#range = db
      .prepare(
        `SELECT server, sum(ok), sum(failed), sum(cancelled), max(last_failure_at), min(min_ms), max(max_ms),
                sum(not_counted), sum(answered), ${sums}
         FROM health_rollup WHERE level = ? AND bucket_start >= ? AND bucket_start < ? GROUP BY server`,
      )
      .raw();
    this.#causes = db
      .prepare(
        'SELECT server, cause, sum(calls) FROM health_causes WHERE level = ? AND bucket_start >= ? AND bucket_start < ? GROUP BY server, cause',
      )
      .raw();
    this.#steps = db
      .prepare(
        `SELECT call_server, call_outcome, duration_ms, created_at, call_cause FROM steps
         WHERE created_at >= ? AND created_at < ? AND call_server IS NOT NULL`,
      )
      .raw();
  }

  /** `query` as given (for the exact path) and as normalized by `checkHealthQuery`. */
  read(query: ServerHealthQuery, normalized: NormalizedHealthQuery): HealthRead {
    const since = Math.max(0, normalized.since ?? 0);
    const until = Math.min(FAR_FUTURE, normalized.until ?? FAR_FUTURE);
    const plan = planRollupWindow(since, until);
    const tallies = new Map<string, Tally>();
    const tally = (server: string): Tally => {
      let t = tallies.get(server);
      if (t === undefined) {
        t = newTally();
        tallies.set(server, t);
      }
      return t;
    };
    let calls = 0;
    for (const { level, from, to } of plan.buckets) {
      // the window is clamped to [0, FAR_FUTURE], so every bound is a number
      const range = [level, from ?? 0, to ?? FAR_FUTURE] as const;
      // the servers with failed calls in the range: only their causes count (as their rows say)
      const failing = new Set<string>();
      for (const row of this.#range.iterate(...range) as Iterable<unknown[]>) {
        const t = tally(row[0] as string);
        const c = t.counts;
        c.ok += row[1] as number;
        c.failed += row[2] as number;
        c.cancelled += row[3] as number;
        calls += (row[1] as number) + (row[2] as number) + (row[3] as number);
        const lastFailure = row[4] as number | null;
        if (lastFailure !== null && (c.lastFailureAt === null || lastFailure > c.lastFailureAt)) c.lastFailureAt = lastFailure;
        if (row[5] !== null) t.min = Math.min(t.min, row[5] as number);
        if (row[6] !== null) t.max = Math.max(t.max, row[6] as number);
        c.notCounted += row[7] as number;
        t.answered += row[8] as number;
        for (let k = 0; k < DURATION_HISTOGRAM_SLOTS; k++) t.histogram[k] = (t.histogram[k] as number) + (row[9 + k] as number);
        if ((row[2] as number) > 0) failing.add(row[0] as string);
      }
      if (failing.size === 0) continue;
      for (const [server, cause, n] of this.#causes.all(...range) as [string, string, number][]) {
        if (!failing.has(server)) continue;
        const causes = tally(server).counts.causes;
        causes.set(cause, (causes.get(cause) ?? 0) + n);
      }
    }
    const pending = this.#pending.count();
    const span = rollupBucketSpan(plan);
    if (span !== null) {
      // a pending call counts where its moved sums would: in the span the plan's buckets cover
      for (const row of this.#pending.callsIn(span.from ?? 0, span.to ?? FAR_FUTURE)) {
        this.#addStep(tally(row[0]), row);
        calls++;
      }
    }
    for (const { from, to } of plan.raw) {
      for (const row of this.#steps.all(from ?? 0, to ?? FAR_FUTURE) as StepRow[]) {
        this.#addStep(tally(row[0]), row);
        calls++;
      }
    }
    if (calls <= this.exactMaxCalls) {
      // A small window: the steps themselves, through the pure definition, so percentiles are exact.
      const rows = (this.#steps.all(since, until) as StepRow[]).map(([server, outcome, durationMs, createdAt, cause]) => ({
        kind: 'tool',
        payload: null,
        toolServer: server,
        toolOutcome: outcome,
        toolFailureCause: cause,
        durationMs,
        createdAt,
      }));
      return { health: serverHealth(rows, query), pending };
    }
    const health = [...tallies.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([server, t]) =>
        healthOf(
          server,
          t.counts,
          {
            answered: t.answered,
            p50: histogramPercentile(t.histogram, 50, t.min, t.max),
            p95: histogramPercentile(t.histogram, 95, t.min, t.max),
          },
          normalized.flaky,
        ),
      );
    return { health, pending };
  }

  /** Adds one step of an edge: counted by trace's rules, its duration only when answered. */
  #addStep(t: Tally, [server, outcome, durationMs, createdAt, cause]: StepRow): void {
    const call = toolCallOf({ kind: 'tool', payload: null, toolServer: server, toolOutcome: outcome, toolFailureCause: cause });
    if (call === null) return;
    addToTally(t.counts, call, createdAt);
    if (!call.answered) return;
    t.answered++;
    t.min = Math.min(t.min, durationMs);
    t.max = Math.max(t.max, durationMs);
    const k = durationSlot(durationMs);
    t.histogram[k] = (t.histogram[k] as number) + 1;
  }
}
