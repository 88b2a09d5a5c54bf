import type Database from 'better-sqlite3';
import { type ToolCallFacts, UNKNOWN_FAILURE_CAUSE } from '@runledger/trace';
import { DAY_LEVEL, durationSlot, ROLLUP_LEVEL_SIZES, rollupBucketStart } from '@runledger/trace/store';

/** The statement of a call with no latency to add (not answered): no histogram bucket, no min/max. */
const NO_LATENCY = -1;

/**
 * Adds one tool call to the server-health rollup (schema version 9), at every level, and widens
 * the server's span of days in `health_servers` when the call falls outside it.
 *
 * @remarks
 * Called inside the transaction that inserts the step, so the rollup and the steps never
 * disagree. How the call counts comes from trace ({@link ToolCallFacts}: `answered`, `counted`,
 * `cause`), never decided here: `not_counted` holds failed calls that are not in the failure
 * rate, `answered` the calls whose duration is in the histogram and min/max (null until a call is
 * answered), `last_failure_at` the last counted failure; `health_causes` holds the failed calls
 * by cause (`unknown` when none was recorded). One prepared upsert per histogram bucket (and one
 * without), made on first use. The span upsert writes only when the span grows.
 *
 * @internal
 */
export class SqliteHealthWriter {
  readonly #db: Database.Database;
  readonly #statements = new Map<number, Database.Statement>();
  readonly #serverDays: Database.Statement;
  readonly #cause: Database.Statement;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#serverDays = db.prepare(`
INSERT INTO health_servers (server, first_day, last_day) VALUES (@server, @day, @day)
ON CONFLICT (server) DO UPDATE SET
  first_day = min(health_servers.first_day, excluded.first_day),
  last_day = max(health_servers.last_day, excluded.last_day)
WHERE excluded.first_day < health_servers.first_day OR excluded.last_day > health_servers.last_day`);
    const causeValues = ROLLUP_LEVEL_SIZES.map((_, level) => `(@server, ${level}, @b${level}, @cause, 1)`).join(', ');
    this.#cause = db.prepare(`
INSERT INTO health_causes (server, level, bucket_start, cause, calls) VALUES ${causeValues}
ON CONFLICT (server, level, bucket_start, cause) DO UPDATE SET calls = calls + 1`);
  }

  add(server: string, call: ToolCallFacts, durationMs: number, createdAt: number): void {
    const bucket = call.answered ? durationSlot(durationMs) : NO_LATENCY;
    const statement = this.#statements.get(bucket) ?? this.#prepare(bucket);
    const failed = call.outcome === 'failed' ? 1 : 0;
    const day = rollupBucketStart(DAY_LEVEL, createdAt);
    this.#serverDays.run({ server, day });
    const buckets: Record<string, number> = {};
    for (let level = 0; level < ROLLUP_LEVEL_SIZES.length; level++) buckets[`b${level}`] = rollupBucketStart(level, createdAt);
    statement.run({
      ...buckets,
      server,
      ok: call.outcome === 'ok' ? 1 : 0,
      failed,
      cancelled: call.outcome === 'cancelled' ? 1 : 0,
      notCounted: failed === 1 && !call.counted ? 1 : 0,
      answered: call.answered ? 1 : 0,
      lastFailure: failed === 1 && call.counted ? createdAt : null,
      duration: call.answered ? durationMs : null,
    });
    if (failed === 1) this.#cause.run({ ...buckets, server, cause: call.cause ?? UNKNOWN_FAILURE_CAUSE });
  }

  #prepare(bucket: number): Database.Statement {
    const h = bucket === NO_LATENCY ? '' : `, h${bucket}`;
    const one = bucket === NO_LATENCY ? '' : ', 1';
    const values = ROLLUP_LEVEL_SIZES.map(
      (_, level) =>
        `(${level}, @b${level}, @server, @ok, @failed, @cancelled, @notCounted, @answered, @lastFailure, @duration, @duration${one})`,
    ).join(', ');
    const statement = this.#db.prepare(`
INSERT INTO health_rollup (level, bucket_start, server, ok, failed, cancelled, not_counted, answered, last_failure_at, min_ms, max_ms${h})
VALUES ${values}
ON CONFLICT (server, level, bucket_start) DO UPDATE SET
  ok = ok + excluded.ok,
  failed = failed + excluded.failed,
  cancelled = cancelled + excluded.cancelled,
  not_counted = not_counted + excluded.not_counted,
  answered = answered + excluded.answered,
  last_failure_at = CASE
    WHEN excluded.last_failure_at IS NOT NULL AND (last_failure_at IS NULL OR excluded.last_failure_at > last_failure_at)
    THEN excluded.last_failure_at ELSE last_failure_at END,
  min_ms = coalesce(min(min_ms, excluded.min_ms), min_ms, excluded.min_ms),
  max_ms = coalesce(max(max_ms, excluded.max_ms), max_ms, excluded.max_ms)${bucket === NO_LATENCY ? '' : `,\n  h${bucket} = h${bucket} + 1`}`);
    this.#statements.set(bucket, statement);
    return statement;
  }
}
