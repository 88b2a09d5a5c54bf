import type pg from 'pg';
import { type ServerHealth, UNKNOWN_FAILURE_CAUSE } from '@runledger/trace';
import {
  DURATION_HISTOGRAM_SLOTS,
  healthOf,
  histogramPercentile,
  newServerHealthTally,
  type NormalizedHealthQuery,
  planRollupWindow,
  rollupBucketSpan,
} from '@runledger/trace/store';
import { timedQuery } from '../postgresConnections.js';
import { storageFailure } from '../storageFailure.js';

/** Percentiles are exact (read from the steps) for a server with at most this many calls in the window… */
const EXACT_PER_SERVER = 1_000;
/** …as long as the servers read exactly hold at most this many calls together. */
const EXACT_TOTAL = 10_000;

/** A server's counts as `health_rollup` holds them (and the health reader sums them). @internal */
export interface HealthRow {
  server: string;
  ok: number;
  failed: number;
  cancelled: number;
  not_counted: number;
  answered: number;
  last_failure_at: number | null;
  duration_min: number | null;
  duration_max: number | null;
  histogram: number[];
}

/** Where calls are read one by one: a table and its columns for a call's server, outcome, cause and how it counts. */
interface CallSource {
  readonly table: string;
  readonly server: string;
  readonly outcome: string;
  readonly cause: string;
  readonly answered: string;
  readonly counted: string;
}

/** The steps at a window's edges: call_answered / call_counted were decided by trace's toolCallOf when the step was written. */
const STEP_CALLS: CallSource = {
  table: 'steps',
  server: 'call_server',
  outcome: 'call_outcome',
  cause: 'call_cause',
  answered: 'call_answered',
  counted: 'call_counted',
};
/** The calls pending for the rollup (PostgresHealthPending), decided the same way. */
const PENDING_CALLS: CallSource = {
  table: 'health_pending',
  server: 'server',
  outcome: 'outcome',
  cause: 'cause',
  answered: 'answered',
  counted: 'counted',
};

/** A health read's answer, and how many calls it found pending (not yet in the rollup). */
export interface HealthRead {
  readonly health: readonly ServerHealth[];
  readonly pending: number;
}

/**
 * Reads server health from the rollup (whole buckets), the calls pending for the rollup in those
 * buckets (PostgresHealthPending; in the same statement, so the same snapshot: each call is in
 * exactly one of the two) and the raw steps at the window's edges, with exact percentiles for
 * servers with few answered calls (the sibling of store-sqlite's reader of the same name).
 */
export class PostgresHealthReader {
  readonly #pool: pg.Pool;
  readonly #q: string;
  readonly #timeoutMs: number;

  /** `timeoutMs`: how long each statement waits for PostgreSQL's answer (PostgresRunStoreOptions.queryTimeoutMs). */
  constructor(pool: pg.Pool, quotedSchema: string, timeoutMs: number) {
    this.#pool = pool;
    this.#q = quotedSchema;
    this.#timeoutMs = timeoutMs;
  }

  /** Per-server health over a checked window, from the rollup; ordered by server id. */
  async read(q: NormalizedHealthQuery): Promise<HealthRead> {
    const plan = planRollupWindow(q.since, q.until);
    const values: unknown[] = [];
    const param = (value: number): string => {
      values.push(value);
      return `$${values.length}::bigint`;
    };
    const parts: string[] = [];
    const causeParts: string[] = [];
    for (const range of plan.buckets) {
      const conditions = [`level = ${range.level}`];
      if (range.from !== null) conditions.push(`bucket_start >= ${param(range.from)}`);
      if (range.to !== null) conditions.push(`bucket_start < ${param(range.to)}`);
      parts.push(
        `SELECT server, ok, failed, cancelled, not_counted, answered, last_failure_at, duration_min, duration_max, histogram
         FROM ${this.#q}.health_rollup WHERE ${conditions.join(' AND ')}`,
      );
      causeParts.push(`SELECT server, cause, calls FROM ${this.#q}.health_causes WHERE ${conditions.join(' AND ')}`);
    }
    const span = rollupBucketSpan(plan);
    if (span !== null) {
      // a pending call counts where its moved sums would: in the span the plan's buckets cover
      const conditions = ['true'];
      if (span.from !== null) conditions.push(`created_at >= ${param(span.from)}`);
      if (span.to !== null) conditions.push(`created_at < ${param(span.to)}`);
      parts.push(this.#calls(PENDING_CALLS, conditions));
      causeParts.push(this.#causes(PENDING_CALLS, conditions));
    }
    for (const range of plan.raw) {
      const conditions = ['call_server IS NOT NULL', 'call_outcome IS NOT NULL'];
      if (range.from !== null) conditions.push(`created_at >= ${param(range.from)}`);
      if (range.to !== null) conditions.push(`created_at < ${param(range.to)}`);
      parts.push(this.#calls(STEP_CALLS, conditions));
      causeParts.push(this.#causes(STEP_CALLS, conditions));
    }
    if (parts.length === 0) return { health: [], pending: 0 };
    const slots = Array.from({ length: DURATION_HISTOGRAM_SLOTS }, (_, i) => `sum(histogram[${i + 1}])`).join(', ');
    const sql = `SELECT server, sum(ok)::float8 AS ok, sum(failed)::float8 AS failed, sum(cancelled)::float8 AS cancelled,
        sum(not_counted)::float8 AS not_counted, sum(answered)::float8 AS answered,
        max(last_failure_at) AS last_failure_at, min(duration_min) AS duration_min, max(duration_max) AS duration_max,
        ARRAY[${slots}]::float8[] AS histogram
      FROM (${parts.join('\nUNION ALL\n')}) AS p (server, ok, failed, cancelled, not_counted, answered, last_failure_at, duration_min, duration_max, histogram)
      GROUP BY server`;
    const causeSql = `SELECT server, cause, sum(calls)::float8 AS calls
      FROM (${causeParts.join('\nUNION ALL\n')}) AS c (server, cause, calls) GROUP BY server, cause`;
    let rows: HealthRow[];
    let causeRows: { server: string; cause: string; calls: number }[];
    let pending: number;
    try {
      [rows, causeRows, pending] = await Promise.all([
        this.#pool.query<HealthRow>(timedQuery(sql, values, this.#timeoutMs)).then((r) => r.rows),
        this.#pool
          .query<{ server: string; cause: string; calls: number }>(timedQuery(causeSql, values, this.#timeoutMs))
          .then((r) => r.rows),
        this.#pool
          .query<{ n: number }>(timedQuery(`SELECT count(*)::int AS n FROM ${this.#q}.health_pending`, [], this.#timeoutMs))
          .then((r) => r.rows[0]!.n),
      ]);
    } catch (error) {
      throw storageFailure('serverHealth', error, this.#timeoutMs);
    }
    rows.sort((a, b) => (a.server < b.server ? -1 : a.server > b.server ? 1 : 0));
    const exact = await this.#exactPercentiles(rows, q.since, q.until);
    const health = rows.map((row) => {
      const tally = newServerHealthTally();
      tally.ok = row.ok;
      tally.failed = row.failed;
      tally.cancelled = row.cancelled;
      tally.notCounted = row.not_counted;
      tally.lastFailureAt = row.last_failure_at;
      for (const c of causeRows) if (c.server === row.server) tally.causes.set(c.cause, c.calls);
      const precise = exact.get(row.server);
      return healthOf(
        row.server,
        tally,
        {
          answered: row.answered,
          p50: precise?.p50 ?? histogramPercentile(row.histogram, 50, row.duration_min, row.duration_max),
          p95: precise?.p95 ?? histogramPercentile(row.histogram, 95, row.duration_min, row.duration_max),
        },
        q.flaky,
      );
    });
    return { health, pending };
  }

  /** One row per call of `source` that meets `conditions`, in the shape of a rollup row (a histogram of one). */
  #calls(source: CallSource, conditions: readonly string[]): string {
    const { table, server, outcome, answered, counted } = source;
    return `SELECT ${server}, (${outcome} = 'ok')::int::bigint, (${outcome} = 'failed')::int::bigint,
              (${outcome} = 'cancelled')::int::bigint, (${outcome} = 'failed' AND NOT ${counted})::int::bigint,
              ${answered}::int::bigint, CASE WHEN ${outcome} = 'failed' AND ${counted} THEN created_at END,
              CASE WHEN ${answered} THEN duration_ms END, CASE WHEN ${answered} THEN duration_ms END,
              CASE WHEN ${answered} THEN ${this.#q}.histogram_one(${this.#q}.duration_bucket(duration_ms))
                   ELSE array_fill(0, ARRAY[${DURATION_HISTOGRAM_SLOTS}]) END
       FROM ${this.#q}.${table} WHERE ${conditions.join(' AND ')}`;
  }

  /** One row per failed call of `source` that meets `conditions`: its server and cause. */
  #causes(source: CallSource, conditions: readonly string[]): string {
    const { table, server, outcome, cause } = source;
    return `SELECT ${server}, coalesce(${cause}, '${UNKNOWN_FAILURE_CAUSE}'), 1::bigint
       FROM ${this.#q}.${table} WHERE ${[...conditions, `${outcome} = 'failed'`].join(' AND ')}`;
  }

  /**
   * Exact nearest-rank p50/p95 (`percentile_disc`) of the answered calls for the servers with few
   * of them in the window, read from the steps through the (call_server, created_at) index:
   * bounded by {@link EXACT_TOTAL} rows, whatever the window holds.
   */
  async #exactPercentiles(
    rows: readonly HealthRow[],
    since: number | null,
    until: number | null,
  ): Promise<Map<string, { p50: number; p95: number }>> {
    const small = rows
      .map((row) => ({ server: row.server, calls: row.answered }))
      .filter((entry) => entry.calls > 0 && entry.calls <= EXACT_PER_SERVER)
      .sort((a, b) => a.calls - b.calls);
    const servers: string[] = [];
    let total = 0;
    for (const entry of small) {
      if (total + entry.calls > EXACT_TOTAL) break;
      servers.push(entry.server);
      total += entry.calls;
    }
    const exact = new Map<string, { p50: number; p95: number }>();
    if (servers.length === 0) return exact;
    const values: unknown[] = [servers];
    const conditions = ['call_server = ANY ($1::text[])', 'call_outcome IS NOT NULL', 'call_answered'];
    if (since !== null) {
      values.push(Math.ceil(since));
      conditions.push(`created_at >= $${values.length}::bigint`);
    }
    if (until !== null) {
      values.push(Math.ceil(until));
      conditions.push(`created_at < $${values.length}::bigint`);
    }
    try {
      const result = await this.#pool.query<{ server: string; p50: number; p95: number }>(
        timedQuery(
          `SELECT call_server AS server,
                percentile_disc(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
                percentile_disc(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
         FROM ${this.#q}.steps WHERE ${conditions.join(' AND ')} GROUP BY call_server`,
          values,
          this.#timeoutMs,
        ),
      );
      for (const row of result.rows) exact.set(row.server, { p50: row.p50, p95: row.p95 });
    } catch (error) {
      throw storageFailure('serverHealth', error, this.#timeoutMs);
    }
    return exact;
  }
}
