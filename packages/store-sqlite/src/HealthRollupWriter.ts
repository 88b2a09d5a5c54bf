import type Database from 'better-sqlite3';
import { HISTOGRAM_BUCKETS, histogramBucket } from './DurationHistogram.js';
import { DAY_LEVEL, ROLLUP_LEVEL_MS, bucketStart } from './HealthRollupLevels.js';

/** Options of a {@link HealthRollupWriter}. */
export interface HealthRollupWriterOptions {
  /**
   * Also keep `health_servers` (schema version 6) up to date. Off only for migration 4, which
   * fills the rollup of a file that has no such table yet; migration 6 then fills it from the
   * rollup.
   */
  readonly serverDays?: boolean;
}

/**
 * Adds one tool call to the server-health rollup, at every level, in one statement, and widens
 * the server's span of days in `health_servers` when the call falls outside it.
 *
 * @remarks
 * Called inside the transaction that inserts the step, so the rollup and the steps never
 * disagree. One prepared upsert per histogram bucket, made on first use. The span upsert writes
 * only when the span grows: once a day per server, or for a call older than its first day.
 *
 * @internal
 */
export class HealthRollupWriter {
  readonly #db: Database.Database;
  readonly #statements: (Database.Statement | undefined)[] = new Array(HISTOGRAM_BUCKETS);
  readonly #serverDays: Database.Statement | undefined;

  constructor(db: Database.Database, options: HealthRollupWriterOptions = {}) {
    this.#db = db;
    this.#serverDays =
      options.serverDays === false
        ? undefined
        : db.prepare(`
INSERT INTO health_servers (server, first_day, last_day) VALUES (@server, @day, @day)
ON CONFLICT (server) DO UPDATE SET
  first_day = min(health_servers.first_day, excluded.first_day),
  last_day = max(health_servers.last_day, excluded.last_day)
WHERE excluded.first_day < health_servers.first_day OR excluded.last_day > health_servers.last_day`);
  }

  add(server: string, outcome: string, durationMs: number, createdAt: number): void {
    const bucket = histogramBucket(durationMs);
    const statement = this.#statements[bucket] ?? this.#prepare(bucket);
    const failed = outcome === 'failed' ? 1 : 0;
    const day = bucketStart(DAY_LEVEL, createdAt);
    this.#serverDays?.run({ server, day });
    statement.run({
      b0: bucketStart(0, createdAt),
      b1: bucketStart(1, createdAt),
      b2: day, // DAY_LEVEL
      b3: bucketStart(3, createdAt),
      server,
      ok: outcome === 'ok' ? 1 : 0,
      failed,
      cancelled: outcome === 'cancelled' ? 1 : 0,
      lastFailure: failed === 1 ? createdAt : null,
      duration: durationMs,
    });
  }

  #prepare(bucket: number): Database.Statement {
    const h = `h${bucket}`;
    const values = ROLLUP_LEVEL_MS.map((_, level) => `(${level}, @b${level}, @server, @ok, @failed, @cancelled, @lastFailure, @duration, @duration, 1)`).join(', ');
    const statement = this.#db.prepare(`
INSERT INTO health_rollup (level, bucket_start, server, ok, failed, cancelled, last_failure_at, min_ms, max_ms, ${h})
VALUES ${values}
ON CONFLICT (server, level, bucket_start) DO UPDATE SET
  ok = ok + excluded.ok,
  failed = failed + excluded.failed,
  cancelled = cancelled + excluded.cancelled,
  last_failure_at = CASE
    WHEN excluded.last_failure_at IS NOT NULL AND (last_failure_at IS NULL OR excluded.last_failure_at > last_failure_at)
    THEN excluded.last_failure_at ELSE last_failure_at END,
  min_ms = min(min_ms, excluded.min_ms),
  max_ms = max(max_ms, excluded.max_ms),
  ${h} = ${h} + 1`);
    this.#statements[bucket] = statement;
    return statement;
  }
}
